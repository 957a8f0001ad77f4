"""`fortap serve`: the suggestion engine as a local HTTP service and a web page.

`app` builds the FastAPI app; `routes` its endpoints; `store` and `sessions` the temporary
workbook store and the open `Suggester`s; `grid` and `export` the cells window and the .xlsx
download; `schemas` and `http_errors` the JSON shapes and the 4xx answers; `web/` the page.
Needs the `serve` extra; nothing here is imported by `fortap suggest`.
"""
