"""The sample Django app of the bench's Django admin: a lending library's back office."""
