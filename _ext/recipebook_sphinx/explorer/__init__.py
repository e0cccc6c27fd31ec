"""The command explorer of a recipe page, in one package: what a target's explorer shows and how
each output writes it.

- ``view.py``: the explorer's view, the engine's ``TargetPage`` in the reader's words
  (``explorer_view``); ``memory_panel.py`` its memory figures, ``results_panel.py`` its
  measured results (and the recipe's plot of them, ``recipe-results``), ``roles.py`` a role's
  title.
- ``nojs.py``: what it shows without JavaScript (hide classes, the stylesheet written at
  ``build-finished``).
- ``html.py`` and ``explorer.html``: the ``recipe_explorer`` node, written as HTML from its view.
- ``text.py``: the same view as headings, paragraphs and code blocks (the node's children:
  search, text builders, the Markdown view).

The directive that places it on a page is ``page/directives.py``'s ``recipe-explorer``; its
behaviour in the browser is ``static/recipebook.js`` (selection, ranks, placeholders) and
``static/recipebook-files.js`` (files and manifests), its styles ``static/recipebook.css``.
"""
