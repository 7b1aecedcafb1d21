//! The container, built and run with podman (`tests/src/podman.rs`: the base images made with
//! debootstrap once, the image built once per run).
//!
//! First the files are read and everything they name checked against the binary: its subcommands,
//! every environment variable (each must be a setting `fourkings serve --help` lists), the port,
//! the health check, the data path, the volume; `docker/compose.cluster.yml`'s nodes and the nginx
//! configuration routing to them. Then the image runs: health, readiness and the health check, a
//! game over the published port, the volume over a restart, the user, SIGTERM, JSON logs, the
//! image's size as docker/README.md states it; then `docker/compose.yml` with podman-compose, and
//! `docker/compose.cluster.yml` (PostgreSQL, three nodes, nginx), whose game survives a kill of
//! the node that owns it.
//!
//! Alone: `cargo test -p fourkings-tests --test container` (as root).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use std::time::{Duration, Instant};

use fourkings_protocol::{GameStatus, ServerMessage, SettingsPatch, close};
use fourkings_tests::podman::{IMAGE, Podman, repository as root};
use fourkings_tests::{Client, Table, WAIT, eventually, fourkings_binary, listening_address, seat};
use yaml_rust2::{Yaml, YamlLoader};

/// Red, Blue, Yellow, Green: one move each.
const OPENING: [(u8, &str); 4] = [(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")];

/// How long a container may take to answer once started.
const STARTING: Duration = Duration::from_secs(30);

/// The name of the `[[bin]]` target that the manifest at `manifest` builds from the file `main`,
/// if any (`name` and `path` lines, the path relative to the manifest's directory).
fn bin_target(manifest: &Path, main: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).expect("the manifest");
    let dir = manifest.parent().expect("the manifest's directory");
    let value = |block: &str, key: &str| {
        block.lines().find_map(|line| {
            let (k, v) = line.split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
        })
    };
    text.split("[[bin]]").skip(1).find_map(|block| {
        let block = block.split("\n[").next().unwrap_or(block);
        let path = value(block, "path")?;
        let same =
            std::fs::canonicalize(dir.join(path)).ok()? == std::fs::canonicalize(main).ok()?;
        same.then(|| value(block, "name")).flatten()
    })
}

/// One instruction of a Dockerfile: its keyword (upper case) and its arguments, continuation
/// lines joined.
#[derive(Debug)]
struct Instruction {
    keyword: String,
    args: String,
}

/// A Dockerfile's instructions, stage by stage (a stage starts at each `FROM`).
fn stages(text: &str) -> Vec<Vec<Instruction>> {
    let mut joined = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                joined.push(std::mem::take(&mut current));
            }
        }
    }
    let mut stages: Vec<Vec<Instruction>> = Vec::new();
    for line in joined.iter().filter(|l| !l.trim().is_empty()) {
        let (keyword, args) = line
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((line, ""));
        let instruction = Instruction {
            keyword: keyword.to_ascii_uppercase(),
            args: args.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        if instruction.keyword == "FROM" {
            stages.push(Vec::new());
        }
        stages
            .last_mut()
            .expect("a Dockerfile starts with FROM")
            .push(instruction);
    }
    stages
}

/// The arguments of the stage's only `keyword` instruction.
fn one<'a>(stage: &'a [Instruction], keyword: &str) -> &'a str {
    let found: Vec<&Instruction> = stage.iter().filter(|i| i.keyword == keyword).collect();
    assert_eq!(found.len(), 1, "one {keyword} in the stage: {stage:?}");
    &found[0].args
}

/// An exec-form argument list: `["fourkings", "serve"]`.
fn exec_form(args: &str) -> Vec<String> {
    serde_json::from_str(args).unwrap_or_else(|e| panic!("{args} is not in exec form: {e}"))
}

/// The `KEY=value` pairs of `ENV` instructions.
fn env_of(stage: &[Instruction]) -> BTreeMap<String, String> {
    stage
        .iter()
        .filter(|i| i.keyword == "ENV")
        .flat_map(|i| i.args.split_whitespace())
        .map(|pair| {
            let (key, value) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("ENV {pair} is not KEY=value"));
            (key.to_owned(), value.trim_matches('"').to_owned())
        })
        .collect()
}

/// The environment variables `fourkings <subcommand> --help` names.
fn env_vars_of(subcommand: &str) -> Vec<String> {
    let output = Command::new(fourkings_binary!())
        .args([subcommand, "--help"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{subcommand} --help");
    let help = String::from_utf8(output.stdout).expect("UTF-8 help");
    help.split("[env: ")
        .skip(1)
        .map(|rest| rest.split(['=', ']']).next().unwrap_or("").to_owned())
        .collect()
}

/// Whether `fourkings <subcommand> --help` lists `flag`.
fn has_flag(subcommand: &str, flag: &str) -> bool {
    let output = Command::new(fourkings_binary!())
        .args([subcommand, "--help"])
        .output()
        .expect("the binary runs");
    String::from_utf8_lossy(&output.stdout)
        .split(|c: char| c.is_whitespace() || c == ',')
        .any(|word| word == flag)
}

/// `"127.0.0.1:8080:8080"` → the container's port, 8080.
fn container_port(mapping: &str) -> u16 {
    mapping
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("a port mapping: {mapping}"))
}

/// Seconds in a compose duration such as `30s` or `1m`.
fn seconds(duration: &str) -> f64 {
    if let Some(s) = duration.strip_suffix("ms") {
        s.parse::<f64>().expect("a number") / 1000.0
    } else if let Some(s) = duration.strip_suffix('s') {
        s.parse().expect("a number")
    } else if let Some(m) = duration.strip_suffix('m') {
        m.parse::<f64>().expect("a number") * 60.0
    } else {
        panic!("a duration: {duration}")
    }
}

fn string(yaml: &Yaml) -> String {
    match yaml {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        other => panic!("a scalar: {other:?}"),
    }
}

#[test]
fn the_container_files_name_only_what_the_code_has() {
    let binary = fourkings_binary!();
    // The binary under test is built from the very file of the server's binary, under a name
    // of its own (tests/Cargo.toml): the Dockerfile must build the server's.
    let server_main = root().join("server/src/main.rs");
    let binary_name = bin_target(&root().join("server/Cargo.toml"), &server_main)
        .expect("server/Cargo.toml builds server/src/main.rs as a [[bin]]");
    let under_test = binary
        .file_stem()
        .and_then(|n| n.to_str())
        .expect("the binary's name");
    assert_eq!(
        bin_target(&root().join("tests/Cargo.toml"), &server_main).as_deref(),
        Some(under_test),
        "the binary under test is built from server/src/main.rs"
    );
    let settings = env_vars_of("serve");

    // The Dockerfile: a build stage, then the runtime stage.
    let dockerfile = std::fs::read_to_string(root().join("docker/Dockerfile")).unwrap();
    let stages = stages(&dockerfile);
    assert!(stages.len() >= 2, "a multi-stage build");
    let build = &stages[0];
    let build_name = one(build, "FROM")
        .split_whitespace()
        .skip_while(|w| !w.eq_ignore_ascii_case("as"))
        .nth(1)
        .expect("the build stage is named (FROM ... AS name)")
        .to_owned();
    let cargo = build
        .iter()
        .rfind(|i| i.keyword == "RUN" && i.args.contains("cargo build"))
        .expect("the build stage runs cargo build");
    let words: Vec<&str> = cargo.args.split_whitespace().collect();
    for flag in ["--release", "--locked"] {
        assert!(words.contains(&flag), "cargo build {flag}: {}", cargo.args);
    }
    let bin = words
        .windows(2)
        .find(|w| w[0] == "--bin")
        .map(|w| w[1])
        .expect("cargo build --bin <name>");
    assert_eq!(bin, binary_name, "the binary the Dockerfile builds");
    assert!(
        cargo.args.contains(&format!("target/release/{bin}")),
        "the release binary is taken: {}",
        cargo.args
    );

    let runtime = stages.last().expect("a runtime stage");
    let copy = one(runtime, "COPY");
    let mut copy_words = copy.split_whitespace();
    assert_eq!(
        copy_words.next(),
        Some(format!("--from={build_name}").as_str()),
        "the runtime stage copies from the build stage"
    );
    let copied: Vec<&str> = copy_words.collect();
    assert!(
        copied.iter().all(|p| p.ends_with(&format!("/{bin}"))),
        "only the binary is copied: {copy}"
    );
    let user = one(runtime, "USER");
    assert!(
        !matches!(user.split(':').next(), Some("root" | "0")),
        "runs as a user other than root: {user}"
    );
    assert!(
        runtime.iter().any(|i| i.keyword == "RUN"
            && i.args.contains("useradd --system")
            && i.args.contains(user)),
        "the user {user} is created as a system user"
    );
    let env = env_of(runtime);
    for key in env.keys() {
        assert!(settings.contains(key), "ENV {key} is a setting of serve");
    }
    let addr: std::net::SocketAddr = env["FOURKINGS_ADDR"].parse().expect("an address");
    assert!(
        addr.ip().is_unspecified(),
        "listens on every address inside"
    );
    let expose: u16 = one(runtime, "EXPOSE").parse().expect("a port");
    assert_eq!(addr.port(), expose, "EXPOSE is the port it listens on");
    let volume = one(runtime, "VOLUME").to_owned();
    let database = PathBuf::from(&env["FOURKINGS_DATABASE"]);
    assert_eq!(
        database.parent(),
        Some(Path::new(&volume)),
        "the database is on the volume"
    );
    assert_eq!(
        one(runtime, "WORKDIR"),
        volume,
        "works in its data directory"
    );
    let entrypoint = exec_form(one(runtime, "ENTRYPOINT"));
    let cmd = exec_form(one(runtime, "CMD"));
    assert_eq!(entrypoint, [bin], "the entry point is the binary");
    assert_eq!(cmd, ["serve"], "the command serves");
    assert_eq!(one(runtime, "STOPSIGNAL"), "SIGTERM");
    let health = one(runtime, "HEALTHCHECK");
    let health_cmd = exec_form(
        health
            .split_once("CMD ")
            .expect("HEALTHCHECK ... CMD [...]")
            .1,
    );
    assert_eq!(health_cmd[0], bin, "the health check runs the binary");
    assert!(
        health_cmd.windows(2).any(|w| w[0] == "--path"),
        "the health check names its path"
    );
    for flag in health_cmd.iter().skip(2).filter(|a| a.starts_with("--")) {
        assert!(
            has_flag(&health_cmd[1], flag),
            "{} takes {flag}",
            health_cmd[1]
        );
    }

    // compose.yml: the image above, its port, its volume.
    let compose_text = std::fs::read_to_string(root().join("docker/compose.yml")).unwrap();
    let compose = &YamlLoader::load_from_str(&compose_text).expect("valid YAML")[0];
    let services = compose["services"].as_hash().expect("services");
    assert_eq!(services.len(), 1, "one service");
    let service = services.values().next().expect("the service");
    let context = root()
        .join("docker")
        .join(string(&service["build"]["context"]));
    assert!(
        context
            .join(string(&service["build"]["dockerfile"]))
            .canonicalize()
            .ok()
            == root().join("docker/Dockerfile").canonicalize().ok(),
        "compose builds docker/Dockerfile"
    );
    let ports = service["ports"].as_vec().expect("ports");
    assert!(
        ports.iter().any(|p| container_port(&string(p)) == expose),
        "compose publishes the port: {ports:?}"
    );
    let volumes = service["volumes"].as_vec().expect("volumes");
    let mount = volumes
        .iter()
        .map(string)
        .find(|v| v.ends_with(&format!(":{volume}")))
        .expect("compose mounts the data volume");
    let volume_name = mount.split(':').next().expect("a volume name");
    assert!(
        !compose["volumes"][volume_name].is_badvalue(),
        "the volume {volume_name} is declared"
    );
    let mut compose_env = BTreeMap::new();
    if let Some(environment) = service["environment"].as_hash() {
        for (key, value) in environment {
            let key = string(key);
            assert!(
                settings.contains(&key),
                "compose's {key} is a setting of serve"
            );
            compose_env.insert(key, string(value));
        }
    }
    let seconds_of = |key: &str| -> f64 {
        compose_env
            .get(key)
            .or(env.get(key))
            .map_or(0.0, |v| v.parse().expect("seconds"))
    };
    let stop_wait = seconds(&string(&service["stop_grace_period"]));
    let shutdown = seconds_of("FOURKINGS_SHUTDOWN_SECONDS");
    let drain = seconds_of("FOURKINGS_DRAIN_SECONDS");
    assert!(
        shutdown > 0.0 && stop_wait > shutdown + drain,
        "the engine waits {stop_wait} s, longer than the drain ({drain} s) and the shutdown \
         ({shutdown} s)"
    );
}

/// A mapping with its YAML merge keys (`<<: *anchor`) applied, as compose applies them: the
/// mapping's own keys win.
fn merged(yaml: &Yaml) -> yaml_rust2::yaml::Hash {
    let mut out = yaml_rust2::yaml::Hash::new();
    let Some(hash) = yaml.as_hash() else {
        return out;
    };
    if let Some(base) = hash.get(&Yaml::String("<<".into())) {
        out.extend(merged(base));
    }
    for (key, value) in hash {
        if key.as_str() != Some("<<") {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

/// `docker/compose.cluster.yml`: three nodes of the image over the PostgreSQL service, each
/// naming itself by its service and port, with settings `serve` has and a stop grace period
/// longer than its drain and shutdown; nginx mounting `docker/nginx-cluster.conf`, which routes
/// to exactly those nodes. (The containers themselves are not run here.)
#[test]
fn the_cluster_compose_file_names_nodes_nginx_routes_to_and_settings_serve_has() {
    let settings = env_vars_of("serve");
    let text = std::fs::read_to_string(root().join("docker/compose.cluster.yml")).unwrap();
    let compose = &YamlLoader::load_from_str(&text).expect("valid YAML")[0];
    let services = compose["services"].as_hash().expect("services");
    let nginx_conf = std::fs::read_to_string(root().join("docker/nginx-cluster.conf")).unwrap();
    let postgres = merged(&compose["services"]["postgres"]);
    let postgres_env = merged(&postgres[&Yaml::String("environment".into())]);
    let pg = |key: &str| string(&postgres_env[&Yaml::String(key.into())]);
    let database = format!(
        "postgres://{}:{}@postgres:5432/{}",
        pg("POSTGRES_USER"),
        pg("POSTGRES_PASSWORD"),
        pg("POSTGRES_DB")
    );
    let mut nodes = 0;
    for (name, service) in services {
        let name = string(name);
        let service = merged(service);
        let Some(environment) = service.get(&Yaml::String("environment".into())) else {
            continue;
        };
        let environment = merged(environment);
        let env = |key: &str| environment.get(&Yaml::String(key.into())).map(string);
        let Some(node_url) = env("FOURKINGS_NODE_URL") else {
            continue;
        };
        nodes += 1;
        for key in environment.keys() {
            let key = string(key);
            assert!(
                settings.contains(&key),
                "{name}'s {key} is a setting of serve"
            );
        }
        assert_eq!(
            node_url,
            format!("http://{name}:8080"),
            "{name} names itself"
        );
        assert_eq!(
            env("FOURKINGS_DATABASE").as_deref(),
            Some(database.as_str())
        );
        assert!(
            nginx_conf.contains(&format!("server {name}:8080")),
            "nginx routes to {name}"
        );
        let build = merged(&service[&Yaml::String("build".into())]);
        let dockerfile = root()
            .join("docker")
            .join(string(&build[&Yaml::String("context".into())]))
            .join(string(&build[&Yaml::String("dockerfile".into())]));
        assert_eq!(
            dockerfile.canonicalize().ok(),
            root().join("docker/Dockerfile").canonicalize().ok(),
            "{name} is the image"
        );
        let seconds_of = |key: &str| env(key).map_or(0.0, |v| v.parse().expect("seconds"));
        let grace = seconds(&string(&service[&Yaml::String("stop_grace_period".into())]));
        assert!(
            grace
                > seconds_of("FOURKINGS_SHUTDOWN_SECONDS") + seconds_of("FOURKINGS_DRAIN_SECONDS"),
            "{name} is given time to hand its rooms over"
        );
    }
    assert_eq!(nodes, 3, "three nodes");
    assert_eq!(
        nginx_conf.matches("    server node").count(),
        nodes,
        "nginx routes to the nodes and nothing else"
    );
    let nginx = merged(&compose["services"]["nginx"]);
    let mounts = nginx[&Yaml::String("volumes".into())]
        .as_vec()
        .expect("nginx's volumes")
        .iter()
        .map(string)
        .collect::<Vec<_>>();
    assert!(
        mounts
            .iter()
            .any(|m| m.starts_with("./nginx-cluster.conf:/etc/nginx/conf.d/")),
        "nginx runs docker/nginx-cluster.conf: {mounts:?}"
    );
}

/// A container of the image with a volume of its own, both removed when dropped.
struct Container {
    podman: &'static Podman,
    name: String,
    volume: String,
}

impl Container {
    /// Starts the image as `name`, its port 8080 published on a free port of the loopback, its
    /// `/data` a new volume, with `env` on top of the image's environment.
    fn start(name: &str, env: &[(&str, &str)]) -> Container {
        let podman = Podman::get();
        podman.image();
        let container = Container {
            podman,
            name: format!("{name}-{}", std::process::id()),
            volume: format!("{name}-data-{}", std::process::id()),
        };
        let _ = podman
            .command(&["rm", "--force", "--time", "0", &container.name])
            .output();
        let mount = format!("{}:/data", container.volume);
        let mut args = vec![
            "run",
            "--detach",
            "--name",
            &container.name,
            "--publish",
            "127.0.0.1::8080",
            "--volume",
            &mount,
        ];
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for pair in &pairs {
            args.extend(["--env", pair]);
        }
        args.push(IMAGE);
        podman.run(&args);
        container
    }

    /// `http://127.0.0.1:PORT`, the published port (the same across restarts).
    fn base(&self) -> String {
        let port = self.podman.run(&["port", &self.name, "8080"]);
        format!("http://{}", port.lines().next().expect("a published port"))
    }

    /// The container's field `format` (`podman inspect --format`).
    fn inspect(&self, format: &str) -> String {
        self.podman.run(&[
            "inspect",
            "--type",
            "container",
            "--format",
            format,
            &self.name,
        ])
    }

    /// Waits until `/healthz` answers 200 through the published port; the base address.
    async fn answering(&self) -> String {
        let base = self.base();
        if !answers(&base).await {
            let logs = self.podman.command(&["logs", &self.name]).output();
            panic!("{} does not answer at {base}: {logs:?}", self.name);
        }
        base
    }

    /// Every line the container wrote: standard output's, then standard error's.
    fn logs(&self) -> (String, String) {
        let out = self
            .podman
            .command(&["logs", &self.name])
            .output()
            .expect("podman logs");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = self
            .podman
            .command(&["rm", "--force", "--time", "0", &self.name])
            .output();
        let _ = self
            .podman
            .command(&["volume", "rm", "--force", &self.volume])
            .output();
    }
}

/// The room's game as a newcomer sees it through `base`.
async fn game_at(base: &str, room: &str) -> (GameStatus, Vec<String>) {
    let (client, snapshot) = Client::join(base, room).await.expect("the room opens");
    client.close().await;
    let moves = snapshot.game.map(|g| g.moves).unwrap_or_default();
    (snapshot.status, moves)
}

/// Four people in a game through `base` while `stop` sends the server SIGTERM: each is told the
/// server is restarting (1012). How long `stop` took.
async fn stopped_telling_everyone(base: &str, stop: impl FnOnce() + Send + 'static) -> Duration {
    let mut table = Table::seat_four_through(&[base], &SettingsPatch::default()).await;
    table.play_opening(&OPENING[..2]).await;
    let stopping = tokio::task::spawn_blocking(move || {
        let began = Instant::now();
        stop();
        began.elapsed()
    });
    for player in &mut table.players {
        let frame = player.closed().await.expect("a close frame");
        assert_eq!(
            u16::from(frame.code),
            close::SERVER_RESTARTING.0,
            "{frame:?}"
        );
    }
    stopping.await.unwrap()
}

/// Whether `/healthz` answers 200 at `base` within [`STARTING`].
async fn answers(base: &str) -> bool {
    eventually(STARTING, || async {
        reqwest::get(format!("{base}/healthz"))
            .await
            .is_ok_and(|r| r.status() == 200)
    })
    .await
}

/// Four people play a game through the published port: four moves, then a resignation.
async fn play_a_game(base: &str) -> (String, Vec<String>) {
    let mut table = Table::seat_four_through(&[base], &SettingsPatch::default()).await;
    table.play_opening(&OPENING).await;
    table.resign(seat(1)).await;
    let room = table.room.id.clone();
    for player in table.players {
        player.close().await;
    }
    let (status, moves) = game_at(base, &room).await;
    assert_eq!(
        status,
        GameStatus::Finished,
        "the resignation ends the game"
    );
    assert_eq!(moves.len(), OPENING.len(), "{moves:?}");
    (room, moves)
}

/// The real image under podman: healthy and ready, its health check healthy, a game over the
/// published port, the room kept by the volume over `podman restart`, the server running as
/// 10001:10001, SIGTERM answered within the drain and the shutdown with exit status 0 and 1012
/// for every client, every log line JSON, and the image's size as docker/README.md states it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_image_serves_a_game_keeps_it_over_a_restart_and_stops_cleanly() {
    let podman = Podman::get();
    let built = podman.image();
    eprintln!(
        "image built in {:.0} s (base images {:.0} s)",
        built.image.as_secs_f64(),
        built.base.as_secs_f64()
    );
    let (drain, shutdown) = (1, 10);
    let began = Instant::now();
    let container = Container::start(
        "fourkings-test",
        &[
            ("FOURKINGS_DRAIN_SECONDS", &drain.to_string()),
            ("FOURKINGS_SHUTDOWN_SECONDS", &shutdown.to_string()),
        ],
    );
    let base = container.answering().await;
    eprintln!(
        "answering {:.1} s after podman run",
        began.elapsed().as_secs_f64()
    );
    let ready = reqwest::get(format!("{base}/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200, "{:?}", ready.text().await);

    // The image's HEALTHCHECK, as podman runs it.
    podman.run(&["healthcheck", "run", &container.name]);
    assert_eq!(container.inspect("{{.State.Health.Status}}"), "healthy");

    let status = podman.run(&["exec", &container.name, "cat", "/proc/1/status"]);
    let ids = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|ids| ids.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert_eq!(ids("Uid:"), ["10001"; 4], "the server's user: {status}");
    assert_eq!(ids("Gid:"), ["10001"; 4], "the server's group: {status}");

    let (room, moves) = play_a_game(&base).await;

    // The volume keeps the room (its SQLite file) over a restart of the container.
    podman.run(&["restart", "--time", "30", &container.name]);
    let base = container.answering().await;
    assert_eq!(
        game_at(&base, &room).await,
        (GameStatus::Finished, moves),
        "the room after the restart"
    );

    // SIGTERM (the image's STOPSIGNAL, sent by podman stop): every client told 1012, the
    // container gone within the drain and the shutdown, exit status 0.
    let name = container.name.clone();
    let took = stopped_telling_everyone(&base, move || {
        Podman::get().run(&["stop", "--time", "60", &name]);
    })
    .await;
    assert!(
        took < Duration::from_secs(drain + shutdown),
        "stopped in {took:?}, within the drain ({drain} s) and the shutdown ({shutdown} s)"
    );
    assert_eq!(container.inspect("{{.State.ExitCode}}"), "0");

    // JSON logs (the image's FOURKINGS_LOG_FORMAT): every line of both streams.
    let (stdout, stderr) = container.logs();
    for line in stdout.lines().chain(stderr.lines()) {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("a JSON log line: {line}: {e}"));
    }
    assert_eq!(
        stdout.lines().filter_map(listening_address).count(),
        2,
        "standard output announces the address once a start: {stdout}"
    );
    assert!(stderr.contains("shutting down"), "{stderr}");

    let size: f64 = podman
        .run(&["image", "inspect", "--format", "{{.Size}}", IMAGE])
        .parse()
        .expect("a size in bytes");
    let megabytes = size / 1e6;
    let readme = std::fs::read_to_string(root().join("docker/README.md")).unwrap();
    let stated: f64 = readme
        .split("The image is ")
        .nth(1)
        .and_then(|rest| rest.split(" MB").next())
        .and_then(|n| n.trim().parse().ok())
        .expect("docker/README.md states the image's size: \"The image is N MB\"");
    assert!(
        (megabytes - stated).abs() <= stated * 0.25,
        "the image is {megabytes:.0} MB; docker/README.md says {stated} MB"
    );
}

/// A podman-compose project, brought down (its volumes removed) when dropped.
struct Project {
    file: &'static str,
    name: String,
    grace: String,
}

impl Project {
    /// `podman-compose -f file up -d` as project `name`, published on a free port of the host
    /// (`FOURKINGS_HOST_PORT`); the project and the address of that port.
    fn up(file: &'static str, name: &str) -> (Project, String) {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let compose = &YamlLoader::load_from_str(&text).expect("valid YAML")[0];
        let grace = compose["services"]
            .as_hash()
            .expect("services")
            .values()
            .map(merged)
            .filter_map(|s| s.get(&Yaml::String("stop_grace_period".into())).map(string))
            .map(|d| seconds(&d))
            .fold(10.0, f64::max);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let project = Project {
            file,
            name: format!("{name}-{}", std::process::id()),
            grace: format!("{grace:.0}"),
        };
        let mut up = Podman::get().compose(file, &project.name, &["up", "-d"]);
        up.env("FOURKINGS_HOST_PORT", port.to_string());
        fourkings_tests::podman::succeeded("podman-compose up -d", up.output());
        (project, format!("http://127.0.0.1:{port}"))
    }

    /// The container of `service`.
    fn container(&self, service: &str) -> String {
        format!("{}_{service}_1", self.name)
    }

    /// The project's containers.
    fn containers(&self) -> Vec<String> {
        let label = format!("label=io.podman.compose.project={}", self.name);
        let ps = Podman::get()
            .command(&["ps", "--all", "--quiet", "--filter", &label])
            .output();
        ps.map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    /// `podman-compose down -v` with the file's grace period; then what podman-compose 1.0
    /// leaves behind: the containers' anonymous volumes (the image's `VOLUME /data` of the
    /// cluster's nodes, which mount nothing there) and the project's network. Whether `down`
    /// succeeded.
    fn down(&self) -> bool {
        let podman = Podman::get();
        let mut anonymous = Vec::new();
        for id in self.containers() {
            let format = "{{range .Mounts}}{{if eq .Type \"volume\"}}{{.Name}} {{end}}{{end}}";
            if let Ok(out) = podman
                .command(&["inspect", "--format", format, &id])
                .output()
            {
                let names = String::from_utf8_lossy(&out.stdout).into_owned();
                anonymous.extend(names.split_whitespace().map(str::to_owned));
            }
        }
        let down = podman
            .compose(self.file, &self.name, &["down", "-v", "-t", &self.grace])
            .output()
            .is_ok_and(|out| out.status.success());
        for volume in anonymous {
            let _ = podman
                .command(&["volume", "rm", "--force", &volume])
                .output();
        }
        let network = format!("{}_default", self.name);
        let _ = podman
            .command(&["network", "rm", "--force", &network])
            .output();
        down
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        self.down();
    }
}

/// `docker/compose.yml` under podman-compose: up on a free port of the host's loopback, a game
/// played through it, stopped with the file's own grace period (podman-compose 1.0 ignores
/// `stop_grace_period`; docker/README.md says so) within it, exit status 0 and 1012 for every
/// client; then down, its container and volume gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compose_brings_the_server_up_and_down_within_its_grace_period() {
    let podman = Podman::get();
    podman.image();
    let (project, base) = Project::up("docker/compose.yml", "fourkings-compose");
    let grace: f64 = project.grace.parse().unwrap();
    let container = project.container("fourkings");
    assert!(answers(&base).await, "compose's server answers at {base}");
    play_a_game(&base).await;

    let (grace_text, name) = (project.grace.clone(), project.name.clone());
    let took = stopped_telling_everyone(&base, move || {
        let stop = Podman::get()
            .compose("docker/compose.yml", &name, &["stop", "-t", &grace_text])
            .output();
        fourkings_tests::podman::succeeded("podman-compose stop", stop);
    })
    .await;
    assert!(took.as_secs_f64() < grace, "stopped in {took:?}");
    assert_eq!(
        podman.run(&["inspect", "--format", "{{.State.ExitCode}}", &container]),
        "0",
        "the server ended by itself, not killed"
    );

    assert!(project.down(), "podman-compose down");
    assert_eq!(
        project.containers(),
        Vec::<String>::new(),
        "down removes the container"
    );
    let volumes = podman.run(&["volume", "ls", "--quiet"]);
    assert!(
        !volumes.contains(&project.name),
        "down -v removes the volume: {volumes}"
    );
}

/// `docker/compose.cluster.yml` under podman-compose: PostgreSQL, three nodes and nginx. A game is
/// played through nginx; the node that owns its room is killed (`podman kill`); everyone comes
/// back through nginx and the game goes on at another node with every acknowledged move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_compose_file_keeps_a_game_through_a_kill_of_its_node() {
    let podman = Podman::get();
    podman.image();
    let (project, base) = Project::up("docker/compose.cluster.yml", "fourkings-cluster");
    // The nodes start while PostgreSQL does (podman-compose does not wait for its health): a
    // room can be made once a node and the database are up.
    let created = eventually(Duration::from_secs(60), || async {
        reqwest::Client::new()
            .post(format!("{base}/api/rooms"))
            .body("{}")
            .send()
            .await
            .is_ok_and(|r| r.status() == 201)
    })
    .await;
    assert!(created, "the cluster makes rooms through nginx at {base}");

    let mut table = Table::seat_four_through(&[&base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING).await;
    let sql = |query: &str| {
        podman.run(&[
            "exec",
            &project.container("postgres"),
            "psql",
            "--username=fourkings",
            "--dbname=fourkings",
            "--tuples-only",
            "--no-align",
            "--command",
            query,
        ])
    };
    let lease = |id: &str| {
        sql(&format!(
            "SELECT node || ' ' || epoch FROM leases WHERE room = '{id}'"
        ))
    };
    let held = lease(&id);
    let (owner, epoch) = held.split_once(' ').expect("a lease: node and epoch");
    let service = owner
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix(":8080"))
        .unwrap_or_else(|| panic!("a node of the compose file: {owner}"));

    let killed = Instant::now();
    podman.run(&["kill", &project.container(service)]);
    for player in &mut table.players {
        let (_, code) = player.until_closed().await;
        assert_ne!(code, Some(1000), "no orderly close from a killed node");
    }
    // The node's lease (5 s, the default) runs out, then a node adopts the room.
    let within = WAIT + Duration::from_secs(5);
    let mut red = Client::rejoin(&base, &id, &table.tokens[0], within).await;
    let game = red.snapshot().await.game.expect("the game goes on");
    assert_eq!(game.move_coordinates, ["h2h4", "b7c7", "g13g12", "m8l8"]);
    let answer = red.play_move(seat(0), &table.tokens[0], 4, "h4h5").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    eprintln!(
        "{service} killed: a move accepted again {:.1} s later",
        killed.elapsed().as_secs_f64()
    );
    let adopted = lease(&id);
    let (_, new_epoch) = adopted.split_once(' ').expect("a lease");
    assert!(
        new_epoch.parse::<u64>().unwrap() > epoch.parse::<u64>().unwrap(),
        "another lease holds the room: {held} then {adopted}"
    );
    red.close().await;
    drop(table);
    assert!(project.down(), "podman-compose down");
    assert_eq!(
        project.containers(),
        Vec::<String>::new(),
        "down removes the containers"
    );
}
