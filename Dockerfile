# The goat image used by docker-compose.yml: the package installed, gunicorn.conf.py and manage.py
# in /app, state (collected static files, beat schedule) in the /data volume. Runs as a non-root user.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    GOAT_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md manage.py gunicorn.conf.py ./
COPY goat ./goat
COPY ratings ./ratings
COPY challenges ./challenges
COPY tournaments ./tournaments
COPY pages ./pages
COPY play ./play
RUN pip install . \
    && useradd --system --uid 1000 --home-dir /app goat \
    && mkdir -p /data \
    && chown goat /data

USER goat
EXPOSE 8000
CMD ["gunicorn", "--config", "/app/gunicorn.conf.py", "goat.asgi"]
