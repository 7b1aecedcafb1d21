//! nginx in front of three nodes, with the configuration `docker/compose.cluster.yml` runs
//! (`docker/nginx-cluster.conf`, the nodes' addresses and the port made this test's). Rooms are
//! created and played through nginx alone: every request naming a room reaches the node that a
//! hash of its id picks, the room moves there with its first WebSocket if it was created
//! elsewhere, and no connection is relayed between nodes. nginx is Debian's package, which
//! `tests/run` installs; without it this test fails and says so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fourkings_protocol::{ServerMessage, SettingsPatch};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{Table, TestServer, WAIT, eventually, seat, temp_dir};

/// Rooms the test creates through nginx.
const ROOMS: usize = 8;

/// nginx, running in the foreground on a configuration of the test's; killed when dropped.
struct Nginx {
    child: std::process::Child,
    base: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The nginx program.
fn nginx_program() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .expect("nginx is installed (Debian's nginx package; tests/run installs it)")
}

/// Starts nginx in `dir` with the documented configuration in front of `nodes`.
fn start_nginx(dir: &Path, nodes: &[TestServer]) -> Nginx {
    let documented = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docker/nginx-cluster.conf"),
    )
    .expect("docker/nginx-cluster.conf");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut routing = documented.replace("listen 8080;", &format!("listen 127.0.0.1:{port};"));
    for (i, node) in nodes.iter().enumerate() {
        let named = format!("server node{}:8080", i + 1);
        assert!(routing.contains(&named), "{named} in the configuration");
        routing = routing.replace(&named, &format!("server {}", node.server.addr()));
    }
    let dir = dir.display();
    let config = format!(
        "daemon off;\nmaster_process off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\n\
         events {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {dir}/body;\n\
         proxy_temp_path {dir}/proxy;\nfastcgi_temp_path {dir}/fastcgi;\n\
         uwsgi_temp_path {dir}/uwsgi;\nscgi_temp_path {dir}/scgi;\n{routing}\n}}\n"
    );
    let file = format!("{dir}/nginx.conf");
    std::fs::write(&file, config).expect("the configuration is written");
    let child = std::process::Command::new(nginx_program())
        .args([
            "-e",
            &format!("{dir}/error.log"),
            "-p",
            &dir.to_string(),
            "-c",
            &file,
        ])
        .spawn()
        .expect("nginx starts");
    Nginx {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routed_by_room_every_connection_reaches_the_rooms_node_and_none_is_relayed() {
    let database = TestPostgres::start();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        nodes.push(TestServer::node(&database, Duration::from_secs(60)).await);
    }
    let dir = temp_dir("nginx");
    let nginx = start_nginx(dir.path(), &nodes);
    let up = eventually(WAIT, || async {
        reqwest::get(format!("{}/healthz", nginx.base))
            .await
            .is_ok()
    })
    .await;
    assert!(up, "nginx answers");

    for _ in 0..ROOMS {
        let mut table = Table::seat_four_through(&[&nginx.base], &SettingsPatch::default()).await;
        let answer = table.play(seat(0), 0, "h2h4").await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
        let info = reqwest::get(format!("{}/api/rooms/{}", nginx.base, table.room.id))
            .await
            .unwrap();
        assert_eq!(info.status(), 200);
    }
    let mut relayed = 0.0;
    let mut pulled = 0.0;
    let mut owned = 0.0;
    for node in &nodes {
        relayed += node
            .metric("fourkings_cluster_forwarded_connections_total")
            .await;
        relayed += node
            .metric("fourkings_cluster_forwarded_requests_total")
            .await;
        pulled += node.metric("fourkings_cluster_rooms_pulled_total").await;
        owned += node.metric("fourkings_cluster_rooms_owned").await;
    }
    println!(
        "{ROOMS} rooms through nginx: {pulled} moved to their node with their first WebSocket"
    );
    assert_eq!(
        relayed, 0.0,
        "no request and no WebSocket was relayed between nodes"
    );
    assert!(pulled <= ROOMS as f64);
    let all_owned = eventually(WAIT, || async {
        let mut owned = 0.0;
        for node in &nodes {
            owned += node.metric("fourkings_cluster_rooms_owned").await;
        }
        owned == ROOMS as f64
    })
    .await;
    assert!(all_owned, "each room is one node's ({owned} counted)");
}
