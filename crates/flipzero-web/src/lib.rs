//! `flipzero serve`: a local web application that plays every preset against every agent of
//! the arena, with the engine's and a network's analysis drawn on the board.
//!
//! The page (`src/page/`) is compiled into the binary. The server keeps no state per game:
//! each request carries the whole game ([`games::GameRequest`]), so tabs are independent and
//! a restarted server loses nothing. Searches run on blocking threads, at most one per core
//! at a time; the others wait their turn.

pub mod agents;
pub mod export_page;
pub mod games;
pub mod models;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use burn::tensor::Device;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::Semaphore;

use games::ApiError;
use models::Models;

/// Where and what to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The address to listen on (localhost unless told otherwise).
    pub address: SocketAddr,
    /// The directory whose checkpoints the page may load.
    pub models: Option<PathBuf>,
}

/// What every request shares.
pub struct Server {
    models: Models,
    device: Device,
    /// One permit per core: searches beyond that wait rather than share the cores.
    searches: Arc<Semaphore>,
    variants: Vec<games::VariantView>,
    /// Answer only requests addressed to this machine by a loopback name (the server listens
    /// on localhost): a page of another site that resolves its own name to 127.0.0.1 (DNS
    /// rebinding) gets nothing.
    loopback_only: bool,
}

impl Server {
    /// A server for the checkpoints under `models`.
    ///
    /// # Errors
    /// A models directory that cannot be read.
    pub fn new(models: Option<&std::path::Path>, loopback_only: bool) -> std::io::Result<Self> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Self {
            models: Models::new(models)?,
            device: Device::default(),
            searches: Arc::new(Semaphore::new(cores)),
            variants: games::variants(),
            loopback_only,
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        (
            status,
            axum::Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

/// A JSON body whose rejections (not JSON, a missing field, the wrong content type) answer
/// in the same `{"error": ...}` form as every other refusal.
struct Json<T>(T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection) => Err(rejection_error(&rejection)),
        }
    }
}

fn rejection_error(rejection: &JsonRejection) -> ApiError {
    ApiError {
        status: rejection.status().as_u16(),
        message: rejection.body_text(),
    }
}

fn answer<T: Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(value) => axum::Json(value).into_response(),
        Err(error) => error.into_response(),
    }
}

/// Runs `work` on a blocking thread, off the threads that serve connections: a game's replay
/// can take a while, and a panic there answers 500 instead of dropping the connection.
async fn blocking<T: Send + 'static>(
    server: &Arc<Server>,
    work: impl FnOnce(&Server) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let shared = Arc::clone(server);
    tokio::task::spawn_blocking(move || work(&shared))
        .await
        .unwrap_or_else(|failure| {
            Err(ApiError {
                status: 500,
                message: format!("the request failed: {failure}"),
            })
        })
}

/// [`blocking`] once a core is free: searches and network loads. The permit goes with the
/// work, so a client that hangs up does not free its core before the search ends.
async fn searched<T: Send + 'static>(
    server: &Arc<Server>,
    work: impl FnOnce(&Server) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = Arc::clone(&server.searches)
        .acquire_owned()
        .await
        .map_err(|_| ApiError::bad("the server is stopping"))?;
    blocking(server, move |server| {
        let result = work(server);
        drop(permit);
        result
    })
    .await
}

async fn variants(State(server): State<Arc<Server>>) -> Response {
    axum::Json(&server.variants).into_response()
}

async fn model_list(State(server): State<Arc<Server>>) -> Response {
    answer(blocking(&server, |server| Ok(server.models.list())).await)
}

async fn start(
    State(server): State<Arc<Server>>,
    Json(request): Json<games::StartRequest>,
) -> Response {
    answer(blocking(&server, move |_| games::start(&request)).await)
}

async fn state(
    State(server): State<Arc<Server>>,
    Json(request): Json<games::GameRequest>,
) -> Response {
    answer(blocking(&server, move |_| games::state(&request)).await)
}

async fn save(
    State(server): State<Arc<Server>>,
    Json(request): Json<games::SaveRequest>,
) -> Response {
    answer(blocking(&server, move |_| games::save(&request)).await)
}

async fn load(
    State(server): State<Arc<Server>>,
    Json(request): Json<games::LoadRequest>,
) -> Response {
    answer(blocking(&server, move |_| games::load(&request)).await)
}

async fn agent_move(
    State(server): State<Arc<Server>>,
    Json(request): Json<agents::AgentRequest>,
) -> Response {
    answer(
        searched(&server, move |server| {
            agents::agent_move(&request, &server.models, &server.device)
        })
        .await,
    )
}

async fn analyze(
    State(server): State<Arc<Server>>,
    Json(request): Json<agents::AnalyzeRequest>,
) -> Response {
    answer(
        searched(&server, move |server| {
            agents::analyze(&request, &server.models, &server.device)
        })
        .await,
    )
}

fn page_file(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn not_found() -> Response {
    ApiError {
        status: 404,
        message: "no such page or request".to_owned(),
    }
    .into_response()
}

async fn wrong_method() -> Response {
    ApiError {
        status: 405,
        message: "not with this method: the page's files are GET, its requests POST".to_owned(),
    }
    .into_response()
}

/// Whether a Host header names this machine by a loopback name (`localhost`, `127.0.0.1`,
/// `[::1]`, with or without a port).
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

async fn check_host(
    State(server): State<Arc<Server>>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    if server.loopback_only {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        if !is_loopback_host(host) {
            return ApiError {
                status: 403,
                message: format!(
                    "this server answers requests for localhost only, not for `{host}` (start it with --host to serve others)"
                ),
            }
            .into_response();
        }
    }
    next.run(request).await
}

/// The application: the page and its JSON requests.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async {
                page_file("text/html; charset=utf-8", include_str!("page/index.html"))
            }),
        )
        .route(
            "/app.js",
            get(|| async {
                page_file(
                    "text/javascript; charset=utf-8",
                    include_str!("page/app.js"),
                )
            }),
        )
        .route(
            "/style.css",
            get(|| async { page_file("text/css; charset=utf-8", include_str!("page/style.css")) }),
        )
        .route("/api/variants", get(variants))
        .route("/api/models", get(model_list))
        .route("/api/start", post(start))
        .route("/api/state", post(state))
        .route("/api/agent", post(agent_move))
        .route("/api/analyze", post(analyze))
        .route("/api/save", post(save))
        .route("/api/load", post(load))
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&server),
            check_host,
        ))
        .with_state(server)
}

/// Serves until interrupted (Ctrl-C), printing the address once listening; `on_listening`
/// hears the bound address (port 0 picks a free one).
///
/// # Errors
/// A models directory that cannot be read, an address that cannot be bound.
pub fn serve(options: &ServeOptions, on_listening: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let loopback_only = options.address.ip().is_loopback();
    let server = Arc::new(
        Server::new(options.models.as_deref(), loopback_only).map_err(|error| {
            anyhow::anyhow!(
                "--models {}: {error}",
                options
                    .models
                    .as_deref()
                    .unwrap_or(std::path::Path::new(""))
                    .display()
            )
        })?,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.address)
            .await
            .map_err(|error| anyhow::anyhow!("listening on {}: {error}", options.address))?;
        on_listening(listener.local_addr()?);
        axum::serve(listener, router(server))
            .with_graceful_shutdown(async {
                // Without a signal handler the server simply runs until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_loopback_names_are_loopback_hosts() {
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.0.0.1:80",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(super::is_loopback_host(host), "{host}");
        }
        for host in [
            "",
            "example.com",
            "evil.localhost.example:80",
            "10.0.0.1:8080",
            "[::2]",
        ] {
            assert!(!super::is_loopback_host(host), "{host}");
        }
    }
}
