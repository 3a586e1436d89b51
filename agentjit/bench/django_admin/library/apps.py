"""The app's configuration: its label is ``library`` (the admin's URLs are ``/admin/library/...``)."""

from django.apps import AppConfig


class LibraryConfig(AppConfig):
    name = "agentjit.bench.django_admin.library"
    label = "library"
    verbose_name = "Library"
    default_auto_field = "django.db.models.AutoField"
