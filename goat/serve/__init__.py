"""Running the service: the web server (gunicorn managing uvicorn workers, ``server``), the
supervision of ``manage.py run``'s children (``supervisor``) and the ``run`` command itself."""
