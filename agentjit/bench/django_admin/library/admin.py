"""The admin of the library: change lists with filters, search, sorting and paging, a bulk
action, add/change forms (authors with their books inline) and delete confirmations."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages

from .models import Author, Book, Loan


class BookInline(admin.TabularInline):
    model = Book
    extra = 0
    fields = ("title", "year", "genre", "in_stock", "price")


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ("name", "country")
    search_fields = ("name", "country")
    inlines = [BookInline]


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ("title", "author", "year", "genre", "in_stock", "price")
    list_filter = ("genre", "in_stock")
    search_fields = ("title", "author__name")
    ordering = ("title",)
    list_per_page = 20


@admin.action(description="Mark selected loans as returned")
def mark_returned(modeladmin: Any, request: Any, queryset: Any) -> None:
    n = queryset.exclude(status="returned").update(status="returned")
    modeladmin.message_user(request, f"{n} loan(s) marked as returned.", messages.SUCCESS)


@admin.register(Loan)
class LoanAdmin(admin.ModelAdmin):
    list_display = ("book", "borrower", "loaned_on", "due_on", "status")
    list_filter = ("status",)
    search_fields = ("borrower", "book__title")
    ordering = ("-loaned_on", "id")
    actions = [mark_returned]
    list_per_page = 20
