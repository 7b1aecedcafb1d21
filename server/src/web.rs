//! The web client: static files embedded in the binary, so that `fourkings` alone serves the whole
//! product. Any path that is not a file gets `index.html` (the client routes `/` and `/r/<id>`).

use axum::body::Body;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;

/// The files of `web-client/`.
#[derive(Embed)]
#[folder = "../web-client/"]
#[exclude = "README.md"]
#[exclude = "*.png"]
struct Assets;

/// `GET /` and `GET /r/<id>`: the client's page.
pub(crate) async fn index() -> Response {
    file("index.html", "no-cache")
}

/// `GET /assets/<path>`: a file of the client.
pub(crate) async fn asset(Path(path): Path<String>) -> Response {
    file(&format!("assets/{path}"), "no-cache")
}

fn file(path: &str, cache: &'static str) -> Response {
    match Assets::get(path) {
        Some(content) => {
            let mime = content.metadata.mimetype();
            let mut response = Response::new(Body::from(content.data.into_owned()));
            if let Ok(value) = HeaderValue::from_str(mime) {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
            // The client renders other people's names and chat as text; this stops any injected
            // markup from running scripts even if a bug ever let it through.
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; media-src 'self' data:",
                ),
            );
            response.headers_mut().insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
