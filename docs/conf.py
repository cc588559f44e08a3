"""Sphinx configuration of hiveai's documentation (docs/development.md says why Sphinx).

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (the ``docs`` extra installs
Sphinx and myst-parser). The pages are Markdown (MyST); the API reference is autodoc of the
installed package's docstrings.
"""

import hiveai

project = "hiveai"
author = "hiveai developers"
copyright = "hiveai developers, MIT licence"
release = hiveai.__version__
version = release

extensions = [
    "myst_parser",  # Markdown pages, the same files GitHub shows
    "sphinx.ext.autodoc",  # the API reference, from the docstrings
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Pages link to each other's sections as ``page.md#heading-slug``, as on GitHub.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# The reference keeps the source order, which is the order the docstrings teach in.
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
# The signatures keep their annotations as written; the docstrings explain the types.
autodoc_typehints = "signature"

html_theme = "alabaster"  # Sphinx's own theme: no further dependency
html_title = f"hiveai {release}"
html_static_path: list[str] = []
