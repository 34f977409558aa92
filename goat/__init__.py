"""goat: the Django project package and the games app (app label ``goat``)."""
