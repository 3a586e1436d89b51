"""Authors, their books and the loans of books to borrowers."""

from __future__ import annotations

from django.db import models

GENRES = [("fiction", "Fiction"), ("history", "History"), ("science", "Science"), ("poetry", "Poetry"), ("children", "Children")]
LOAN_STATUSES = [("out", "Out"), ("overdue", "Overdue"), ("returned", "Returned")]


class Author(models.Model):
    name = models.CharField(max_length=100, unique=True)
    country = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    year = models.PositiveIntegerField()
    genre = models.CharField(max_length=20, choices=GENRES)
    in_stock = models.BooleanField(default=True)
    price = models.DecimalField(max_digits=6, decimal_places=2)

    def __str__(self) -> str:
        return self.title


class Loan(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="loans")
    borrower = models.CharField(max_length=100)
    loaned_on = models.DateField()
    due_on = models.DateField()
    status = models.CharField(max_length=20, choices=LOAN_STATUSES, default="out")

    def __str__(self) -> str:
        return f"{self.book} to {self.borrower}"
