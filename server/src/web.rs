//! The web client: static files embedded in the binary, so that `fourkings` alone serves the whole
//! product. Any path that is not a file gets `index.html` (the client routes `/` and `/r/<id>`).

use axum::body::Body;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;

/// The files of `web-client/` that the browser loads: the page and `assets/`. Only these: the
/// folder also holds the README's screenshot and the client's development tools
/// (`package.json`, the type and lint configuration, `node_modules/` once installed), which are
/// neither served nor built in.
#[derive(Embed)]
#[folder = "../web-client/"]
#[include = "index.html"]
#[include = "assets/*"]
struct Assets;

/// `GET /` and `GET /r/<id>`: the client's page.
pub(crate) async fn index() -> Response {
    file("index.html", "no-cache")
}

/// `GET /assets/<path>`: a file of the client.
pub(crate) async fn asset(Path(path): Path<String>) -> Response {
    // Debug builds read the files from disk, where `assets/../package.json` would name a file
    // of the folder outside `assets/` (release builds only know the embedded names).
    if path.split(['/', '\\']).any(|segment| segment == "..") {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_page_and_its_assets_are_embedded() {
        let names: Vec<String> = Assets::iter().map(|name| name.into_owned()).collect();
        assert!(names.iter().any(|n| n == "index.html"), "{names:?}");
        assert!(names.iter().any(|n| n == "assets/main.js"), "{names:?}");
        let others: Vec<&String> = names
            .iter()
            .filter(|n| *n != "index.html" && !n.starts_with("assets/"))
            .collect();
        assert!(
            others.is_empty(),
            "embedded beyond the page and assets/: {others:?}"
        );
        for tool in [
            "package.json",
            "README.md",
            "eslint.config.js",
            "tsconfig.json",
            "pictures/teams.png",
            "test/state.test.js",
        ] {
            assert!(Assets::get(tool).is_none(), "{tool} is embedded");
        }
    }

    #[tokio::test]
    async fn an_asset_path_cannot_climb_out_of_assets() {
        let climbing = asset(Path("../README.md".to_owned())).await;
        assert_eq!(climbing.status(), StatusCode::NOT_FOUND);
        let plain = asset(Path("main.js".to_owned())).await;
        assert_eq!(plain.status(), StatusCode::OK);
    }
}
