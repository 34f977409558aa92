"""Date formats where Django's own for a language read wrong (settings.FORMAT_MODULE_PATH): only the
formats named here replace Django's (django.conf.locale); the rest stay Django's."""
