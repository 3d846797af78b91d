//! The web client: the files of `api/web/`, embedded at compile time (see `build.rs`), served
//! at `/` with their content types, a strict Content-Security-Policy and cache validators.
//! The client is an ordinary user of the public `/v1` API.

use actix_web::http::header::{self, HeaderValue};
#[allow(unused_imports)] // named in the routes' `wrap` attributes
use actix_web::middleware::Compress;
use actix_web::{route, web, HttpRequest, HttpResponse};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/web_files.rs"));
}

/// Scripts, styles, images and API calls come from this server only; nothing inline, no
/// plug-ins, no framing, no base rewriting, forms post nowhere else.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self'; img-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; \
form-action 'self'; frame-ancestors 'none'";

/// The policy of the bundled API documentation (`/docs/`): Swagger UI's own scripts, its
/// inline styles and the images it draws as `data:` URIs; nothing from other hosts, no framing.
pub const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; \
connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The headers every answer carries (a body is never sniffed into another type), and the
/// documentation's pages their policy and framing refusal, as the client's page has.
pub fn secure_headers(headers: &mut header::HeaderMap, docs: bool) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if docs {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DOCS_CONTENT_SECURITY_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
    }
}

/// A web file by its path under `web/`: bytes and entity tag.
pub fn file(path: &str) -> Option<(&'static [u8], &'static str)> {
    embedded::FILES
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|(_, bytes, etag)| (*bytes, *etag))
}

/// Every embedded file's path and size in bytes.
pub fn files() -> impl Iterator<Item = (&'static str, usize)> {
    embedded::FILES
        .iter()
        .map(|(name, bytes, _)| (*name, bytes.len()))
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn serve(req: &HttpRequest, path: &str) -> HttpResponse {
    let Some((bytes, etag)) = file(path) else {
        // Turned into a `not_found` problem by the application's error handler.
        return HttpResponse::NotFound().finish();
    };
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        });
    let mut response = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, format!("W/{etag}")))
        // Always revalidate: a new binary serves new files at once, an unchanged file costs
        // a 304.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if path.ends_with(".html") {
        response
            .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
            .insert_header((header::X_FRAME_OPTIONS, "DENY"));
    }
    if fresh {
        return response.finish();
    }
    response
        .insert_header((header::CONTENT_TYPE, content_type(path)))
        .body(bytes)
}

/// The web client's page (`HEAD` answers the same headers, without the body). Every file is
/// sent compressed (brotli, gzip or zstd, as the browser accepts) by actix's `Compress`, with
/// `Vary: Accept-Encoding`; its entity tag is weak, since the same file travels in several
/// encodings.
#[route("/", method = "GET", method = "HEAD", wrap = "Compress::default()")]
pub async fn index(req: HttpRequest) -> HttpResponse {
    serve(&req, "index.html")
}

/// The web client's scripts, style and images (`/app.js`, `/tables/avalanche-chess.js`, ...).
#[route(
    "/{path:(?:tables/)?[a-z0-9-]+\\.(?:html|js|css|svg)}",
    method = "GET",
    method = "HEAD",
    wrap = "Compress::default()"
)]
pub async fn asset(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    serve(&req, &path)
}
