//! Podman, for the tests that build `docker/Dockerfile` and run the image
//! (`tests/tests/container.rs`).
//!
//! These machines reach Debian's package mirror but no image registry, so the base images the
//! Dockerfile names are made by `docker/podman/make-base-images` (debootstrap) once and kept in
//! podman's own storage between runs. Podman runs as root with a `containers.conf` of the tests'
//! own: the `runc` runtime and ulimits no higher than this machine's (podman's defaults for root
//! are higher than a sandbox may grant, and the container would not start). The image is built in
//! docker's format, which keeps `HEALTHCHECK`, with the host's CA certificates mounted for cargo.
//!
//! Where podman cannot run, [`Podman::get`] panics saying why: a container test never passes
//! without a container.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The name the tests build the image under: the one `docker/compose.yml` runs.
pub const IMAGE: &str = "localhost/fourkings:latest";

/// Podman, checked and configured for these tests.
pub struct Podman {
    /// The `containers.conf` every podman command here reads.
    conf: PathBuf,
}

/// How long the image's build took, the first time [`Podman::image`] was asked in this process.
#[derive(Clone, Copy, Debug)]
pub struct Built {
    /// The base images (zero when podman's storage had them).
    pub base: Duration,
    /// `podman build`.
    pub image: Duration,
}

/// The repository's root.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

impl Podman {
    /// Podman for this process's tests; panics saying why when it cannot run here.
    pub fn get() -> &'static Podman {
        static PODMAN: OnceLock<Podman> = OnceLock::new();
        PODMAN.get_or_init(Podman::check)
    }

    fn check() -> Podman {
        let uid = Command::new("id").arg("-u").output().expect("`id` runs");
        assert_eq!(
            String::from_utf8_lossy(&uid.stdout).trim(),
            "0",
            "the container tests run podman as root (rootless podman needs user namespaces and \
             the base images need debootstrap, which needs root): run them as root"
        );
        // Beside the test binaries, not in a temporary folder: this value lives in a static,
        // which is never dropped, so a temporary folder would be left behind by every run.
        let conf = std::env::current_exe()
            .expect("the test binary's path")
            .parent()
            .and_then(Path::parent)
            .expect("the test binary is in target/<profile>/deps")
            .join("podman-containers.conf");
        std::fs::write(&conf, containers_conf()).expect("writing containers.conf");
        let podman = Podman { conf };
        let info = podman
            .command(&["info", "--format", "{{.Host.OCIRuntime.Name}}"])
            .output();
        match info {
            Err(error) => panic!(
                "podman cannot be run ({error}): tests/run installs it as root \
                 (apt-get install podman runc podman-compose debootstrap)"
            ),
            Ok(out) => assert!(
                out.status.success(),
                "podman cannot run here: `podman info` says {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
        podman
    }

    /// A podman command with these tests' configuration.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("podman");
        command
            .args(args)
            .env("CONTAINERS_CONF", &self.conf)
            .stdin(Stdio::null());
        command
    }

    /// A `podman-compose` command with these tests' configuration, from the repository's root.
    pub fn compose(&self, file: &str, project: &str, args: &[&str]) -> Command {
        let mut command = Command::new("podman-compose");
        command
            .args(["-f", file, "-p", project])
            .args(args)
            .current_dir(repository())
            .env("CONTAINERS_CONF", &self.conf)
            .stdin(Stdio::null());
        command
    }

    /// Runs `podman args…`; its standard output, trimmed. Panics with its error output when it
    /// fails.
    pub fn run(&self, args: &[&str]) -> String {
        succeeded(
            &format!("podman {}", args.join(" ")),
            self.command(args).output(),
        )
    }

    /// The image of `docker/Dockerfile`, built once per process (after the base images, made if
    /// podman's storage lacks them), as [`IMAGE`], with how long that took.
    pub fn image(&self) -> Built {
        static BUILT: OnceLock<Built> = OnceLock::new();
        *BUILT.get_or_init(|| self.build())
    }

    fn build(&self) -> Built {
        let began = Instant::now();
        let mut bases = Command::new(repository().join("docker/podman/make-base-images"));
        bases.env("CONTAINERS_CONF", &self.conf);
        succeeded("docker/podman/make-base-images", bases.output());
        let base = began.elapsed();
        let began = Instant::now();
        let certs = "/etc/ssl/certs:/etc/ssl/certs:ro";
        let mut build = self.command(&[
            "build",
            "--pull=never",
            "--format",
            "docker",
            "--volume",
            certs,
            "--file",
            "docker/Dockerfile",
            "--tag",
            IMAGE,
            ".",
        ]);
        build.current_dir(repository());
        succeeded("podman build", build.output());
        Built {
            base,
            image: began.elapsed(),
        }
    }
}

/// The standard output of a command that must succeed, trimmed.
pub fn succeeded(what: &str, output: std::io::Result<Output>) -> String {
    let output = output.unwrap_or_else(|e| panic!("{what} cannot be run: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}",
        output.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// `runc`, and the open-files and process limits of this process as every container's: podman
/// would otherwise ask for more than a sandboxed machine grants, and no container would start.
/// (A sandbox of these machines also refuses a process limit above the kernel's `pid_max`.)
fn containers_conf() -> String {
    let limits = std::fs::read_to_string("/proc/self/limits").expect("/proc/self/limits");
    let hard = |name: &str| {
        limits
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line[name.len()..].split_whitespace().nth(1))
            .map(|limit| if limit == "unlimited" { "-1" } else { limit })
            .unwrap_or_else(|| panic!("{name} in /proc/self/limits"))
            .to_owned()
    };
    let files = hard("Max open files");
    let pid_max: i64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|max| max.trim().parse().ok())
        .unwrap_or(i64::MAX);
    let processes = match hard("Max processes").parse::<i64>() {
        Ok(-1) | Err(_) => pid_max,
        Ok(limit) => limit.min(pid_max),
    };
    format!(
        "[containers]\n\
         default_ulimits = [\"nofile={files}:{files}\", \"nproc={processes}:{processes}\"]\n\
         [engine]\n\
         runtime = \"runc\"\n"
    )
}
