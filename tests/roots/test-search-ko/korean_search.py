"""Registers only the Korean search language, as the site's extension does."""

from recipebook_sphinx.search.korean import SearchKorean


def setup(app):
    app.add_search_language(SearchKorean)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
