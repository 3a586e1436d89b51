"""Create a Wagtail site with sample pages, deterministically: python3 make_site.py DIR.

Runs ``wagtail start`` in DIR (which must not exist), gives the home page type a rich-text
``body`` and a short ``intro``, migrates a fresh sqlite database, creates the superuser
``admin`` / ``wagtail-pass-1`` and 60 pages under the home page (titles, intros and bodies
are fixed, so every rebuild is the same site). Use the Python of the environment Wagtail is
installed in (``.venv/bin/python examples/wagtail/make_site.py /tmp/wagtail-site``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MODELS = '''from django.db import models

from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField
from wagtail.models import Page


class HomePage(Page):
    intro = models.CharField(max_length=250, blank=True)
    body = RichTextField(blank=True)

    content_panels = Page.content_panels + [FieldPanel("intro"), FieldPanel("body")]
'''

PAGES = '''
from home.models import HomePage
from wagtail.models import Page

TOPICS = ["Gardening", "Birds", "Bread", "Rivers", "Chess", "Bicycles", "Lighthouses", "Tea",
          "Maps", "Clocks", "Kites", "Bees", "Moths", "Ferns", "Canals", "Owls", "Glass", "Salt",
          "Tides", "Wool"]
home = Page.objects.get(depth=2).specific
for i, topic in enumerate(TOPICS):
    for j, kind in enumerate(["Guide", "Notes", "History"]):
        title = f"{topic} {kind}"
        page = HomePage(title=title, slug=title.lower().replace(" ", "-"),
                        intro=f"A short {kind.lower()} about {topic.lower()}.",
                        body=f"<p>{topic} {kind.lower()}: first paragraph {i * 3 + j}.</p>")
        home.add_child(instance=page)
        if j != 2:                                  # the History pages stay drafts
            page.save_revision().publish()
        else:
            page.live = False
            page.save_revision()
            Page.objects.filter(pk=page.pk).update(live=False)
print(Page.objects.count(), "pages")
'''


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: make_site.py DIR", file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve()
    if root.exists():
        print(f"make_site.py: {root} exists; give a new directory", file=sys.stderr)
        return 2
    bindir = Path(sys.executable).parent
    root.mkdir(parents=True)
    subprocess.run([str(bindir / "wagtail"), "start", "mysite", str(root)], check=True)
    (root / "home" / "models.py").write_text(MODELS)
    env = dict(os.environ, DJANGO_SUPERUSER_PASSWORD="wagtail-pass-1")
    manage = [sys.executable, "manage.py"]
    for args in (["makemigrations", "home"], ["migrate", "--noinput"],
                 ["createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.com"],
                 ["shell", "-c", PAGES]):
        subprocess.run(manage + args, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    print(f"site in {root}; run: cd {root} && {sys.executable} manage.py runserver 127.0.0.1:8791 --noreload")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
