"""The pages' words over HTTP, for the board's web door and the fleet dashboard alike:
GET /i18n/<lang>.json (a catalog's JSON export, docs/translating.md) and the script that
reads it (`i18n.js`, kept with the board's pages)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from kiothi_board.i18n import available, catalog_bytes

__all__ = ["I18N_JS", "add_catalog_routes", "catalog"]

I18N_JS = Path(__file__).with_name("web") / "i18n.js"


async def catalog(request: web.Request) -> web.Response:
    """GET /i18n/<lang>.json: a language's words for the pages; 404 without a catalog."""
    lang = request.match_info["lang"]
    if lang not in available():
        raise web.HTTPNotFound(text=f"no catalog for language {lang[:16]!r}")
    return web.Response(body=catalog_bytes(lang), content_type="application/json")


async def _script(request: web.Request) -> web.FileResponse:
    return web.FileResponse(I18N_JS)


def add_catalog_routes(app: web.Application, *, script: bool = False) -> None:
    """Add /i18n/<lang>.json (and, with `script`, /static/i18n.js: before any /static/ route)."""
    app.router.add_get("/i18n/{lang}.json", catalog)
    if script:
        app.router.add_get("/static/i18n.js", _script)
