//! The container. No container engine runs where the tests run, so this reads `docker/Dockerfile`
//! and `docker/compose.yml` and checks everything they name against the real binary: the binary and
//! its subcommands, every environment variable (each must be a setting `fourkings serve --help`
//! lists), the port, the health check's command and path, the data path and the volume. It then
//! runs the image's own command line (entry point, command and environment, with compose's
//! environment on top) on this machine, with the data directory moved into a temporary one and the
//! port made free, and runs the health check's command against it. `docker/compose.cluster.yml`
//! is checked likewise: its nodes, their settings, and the nginx configuration that routes to
//! them (which `tests/tests/cluster_balancer.rs` runs for real).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fourkings_tests::{ServerProcess, fourkings_binary, temp_dir};
use yaml_rust2::{Yaml, YamlLoader};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

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

#[tokio::test]
async fn the_container_files_name_only_what_the_code_has_and_their_command_line_serves() {
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
        .find(|i| i.keyword == "RUN" && i.args.contains("cargo build"))
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
    assert_eq!(one(runtime, "STOPSIGNAL"), "SIGTERM");
    let health = one(runtime, "HEALTHCHECK");
    let health_cmd = exec_form(
        health
            .split_once("CMD ")
            .expect("HEALTHCHECK ... CMD [...]")
            .1,
    );
    assert_eq!(health_cmd[0], bin, "the health check runs the binary");
    let health_path = health_cmd
        .windows(2)
        .find(|w| w[0] == "--path")
        .map(|w| w[1].clone())
        .expect("the health check names its path");
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

    // The image's command line, here: its environment (then compose's), the volume moved into a
    // temporary directory, a free port.
    let data = temp_dir("container");
    let mut run_env: BTreeMap<String, String> = env.clone();
    run_env.extend(compose_env);
    run_env.insert("FOURKINGS_ADDR".into(), "127.0.0.1:0".into());
    let moved_database = data.path().join(database.strip_prefix(&volume).unwrap());
    run_env.insert(
        "FOURKINGS_DATABASE".into(),
        moved_database.to_str().unwrap().into(),
    );
    let pairs: Vec<(&str, &str)> = run_env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let log = std::fs::File::create(data.path().join("log")).unwrap();
    let mut server = ServerProcess::spawn_logging_to(fourkings_binary!(), &args, &pairs, log);
    assert!(
        moved_database.exists(),
        "the database is created on the volume"
    );
    let port = server
        .base
        .rsplit(':')
        .next()
        .and_then(|p| p.parse::<u16>().ok())
        .expect("a port");
    // The health check as the image runs it: FOURKINGS_ADDR as the image sets it (0.0.0.0 at
    // this server's port).
    let check = Command::new(binary)
        .args(&health_cmd[1..])
        .env("FOURKINGS_ADDR", format!("0.0.0.0:{port}"))
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "the health check passes: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    let answer = reqwest::get(format!("{}{health_path}", server.base))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{health_path}");
    let status = tokio::task::spawn_blocking(move || {
        let status = server.signal_and_wait("TERM");
        drop(server);
        status
    })
    .await
    .unwrap();
    assert!(status.success(), "STOPSIGNAL ends it cleanly: {status:?}");
    // Nothing answers any more: the health check fails.
    let check = Command::new(binary)
        .args(&health_cmd[1..])
        .env("FOURKINGS_ADDR", format!("0.0.0.0:{port}"))
        .output()
        .unwrap();
    assert!(!check.status.success(), "the health check fails when down");
    if env.get("FOURKINGS_LOG_FORMAT").map(String::as_str) == Some("json") {
        let log = std::fs::read_to_string(data.path().join("log")).unwrap();
        assert!(!log.is_empty());
        for line in log.lines() {
            serde_json::from_str::<serde_json::Value>(line)
                .unwrap_or_else(|e| panic!("a JSON log line: {line}: {e}"));
        }
    }
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
