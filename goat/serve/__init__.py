"""Running the service: the web server (gunicorn managing uvicorn workers, ``server``; what a request may
hold before Django, ``request_limits``; the crossing to a thread, ``bridge``; freeing a request's objects,
``request_release``), the embedded Celery broker (``filesystem_broker``), the supervision of
``manage.py run``'s children (``supervisor``) and the ``run`` command itself."""
