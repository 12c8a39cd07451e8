"""The outputs written from the stored results: CSV tables, HTML pages, similarity, regrade changes."""
