//! A PostgreSQL server of a test's own: a fresh cluster in a temporary folder, on a free port of
//! 127.0.0.1, stopped and removed when the value is dropped.
//!
//! A value that is never dropped (a test process that exits while another thread, such as a
//! server's storage writer, still holds it, or one that is killed) must not leave a server
//! running either: each cluster has a guardian, a shell holding the reading end of a pipe whose
//! writing end only the test process has. When that process ends, however it ends, the pipe
//! closes and the guardian stops the cluster and removes its folder.
//!
//! It takes the programs of Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`,
//! or `initdb` on the `PATH`); `tests/run` installs the package when it is missing. PostgreSQL
//! refuses to run as root, so where the tests run as root the cluster belongs to the package's
//! `postgres` user. Without the programs, or as root without that user, starting one panics and
//! says why: a test that needs PostgreSQL never passes without it.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use tempfile::TempDir;

/// The user the tests' clusters are made for (trusted on 127.0.0.1: no password).
const USER: &str = "fourkings";

/// A running PostgreSQL server for one test.
pub struct TestPostgres {
    /// The cluster's folder (its data in `data/`, its socket and log beside).
    dir: TempDir,
    /// The cluster's data folder: `data/` in `dir`, or on a disk of the test's.
    data: PathBuf,
    bin: PathBuf,
    port: u16,
    /// The user and group the server runs as, when the tests run as root.
    owner: Option<(u32, u32)>,
    /// Stops the cluster if the test process ends without dropping this value ([`guard`]).
    guardian: Option<(Child, ChildStdin)>,
}

impl TestPostgres {
    /// Makes a cluster and starts it; panics, saying why, where PostgreSQL cannot run.
    pub fn start() -> TestPostgres {
        TestPostgres::start_with(None, |_| {})
    }

    /// Like [`TestPostgres::start`], with the cluster's data (tables and write-ahead log) in
    /// `disk/data`, for a test that fills that disk (its log and socket stay beside).
    pub fn start_on(disk: &Path) -> TestPostgres {
        TestPostgres::start_with(Some(disk), |_| {})
    }

    /// Like [`TestPostgres::start`], serving TLS as well as plain text, with a certificate for
    /// `127.0.0.1` signed by a test authority of its own ([`TestPostgres::authority`]), which no
    /// system trusts.
    pub fn start_with_tls() -> TestPostgres {
        TestPostgres::start_with(None, TestPostgres::serve_tls)
    }

    /// The PEM file of the authority that signed the certificate of a cluster started with TLS.
    pub fn authority(&self) -> PathBuf {
        self.dir.path().join("authority.crt")
    }

    fn start_with(disk: Option<&Path>, prepare: impl FnOnce(&TestPostgres)) -> TestPostgres {
        let bin = programs().unwrap_or_else(|| {
            panic!(
                "these tests need PostgreSQL's programs (initdb, pg_ctl): install Debian's \
                 `postgresql` package (tests/run does so when it runs as root)"
            )
        });
        let owner = if is_root() {
            Some(postgres_user().unwrap_or_else(|| {
                panic!(
                    "running as root, these tests start PostgreSQL as the `postgres` user, which \
                     this machine does not have (Debian's `postgresql` package makes it)"
                )
            }))
        } else {
            None
        };
        let dir = crate::temp_dir("postgres");
        let data = disk.unwrap_or(dir.path()).join("data");
        if let Some((uid, gid)) = owner {
            for folder in [Some(dir.path()), disk].into_iter().flatten() {
                std::os::unix::fs::chown(folder, Some(uid), Some(gid))
                    .expect("the cluster's folders are given to the postgres user");
            }
        }
        let mut cluster = TestPostgres {
            dir,
            data,
            bin,
            port: 0,
            owner,
            guardian: None,
        };
        cluster.guardian = Some(cluster.guard());
        cluster.init();
        prepare(&cluster);
        cluster.port = free_port();
        cluster.resume();
        cluster
    }

    /// The URL the server under test is given.
    pub fn url(&self) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server (a clean shutdown that ends every connection), as an operator would.
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast", "-w"]);
    }

    /// Kills the server: every process at once, with no shutdown (`pg_ctl stop -m immediate`,
    /// which is SIGQUIT: the next start recovers from the write-ahead log, as after a crash).
    pub fn kill(&self) {
        self.pg_ctl(&["stop", "-m", "immediate", "-w"]);
    }

    /// Starts the stopped server again, on the same port, and waits until it takes connections.
    pub fn resume(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log");
        self.pg_ctl(&[
            "start",
            "-w",
            "-t",
            "60",
            "-l",
            &log.display().to_string(),
            "-o",
            &options,
        ]);
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    /// Runs `statement` with `psql` and returns what it prints (rows a line, fields by `|`).
    pub fn sql(&self, statement: &str) -> String {
        let output = self
            .command("psql")
            .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement])
            .arg(self.url())
            .output()
            .expect("psql runs");
        assert!(
            output.status.success(),
            "psql failed on {statement:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("psql prints text")
            .trim()
            .to_owned()
    }

    /// Starts `psql` on `statements` in a session of its own and returns at once: a session that
    /// holds a lock while the test goes on. Killing the child ends the session.
    pub fn session(&self, statements: &str) -> std::process::Child {
        self.command("psql")
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", statements])
            .arg(self.url())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("psql starts")
    }

    fn init(&self) {
        let data = self.data();
        let status = self
            .command("initdb")
            .args(["-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync"])
            .arg("-D")
            .arg(&data)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("initdb runs");
        assert!(status.success(), "initdb failed: {status}");
    }

    /// Makes the authority and the server's certificate with `openssl`, and turns TLS on.
    fn serve_tls(&self) {
        let dir = self.dir.path();
        let openssl = |args: &[&str]| {
            let output = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .expect("these tests need the `openssl` program (Debian's `openssl` package)");
            assert!(
                output.status.success(),
                "openssl {args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        let key = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            &[
                &[
                    "req",
                    "-x509",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=Four Kings test authority",
                ][..],
                &key,
                &["-keyout", "authority.key", "-out", "authority.crt"],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &key,
                &[
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=127.0.0.1",
                ],
            ]
            .concat(),
        );
        std::fs::write(
            dir.join("server.ext"),
            "basicConstraints = CA:FALSE\nsubjectAltName = IP:127.0.0.1\n",
        )
        .expect("the certificate's extensions are written");
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "authority.crt",
            "-CAkey",
            "authority.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ]);
        for file in ["server.crt", "server.key"] {
            let path = dir.join(file);
            // PostgreSQL refuses a key that others can read, or that its user does not own.
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                .expect("the key is made private");
            if let Some((uid, gid)) = self.owner {
                std::os::unix::fs::chown(&path, Some(uid), Some(gid))
                    .expect("the key is given to the postgres user");
            }
        }
        let settings = format!(
            "ssl = on\nssl_cert_file = '{}'\nssl_key_file = '{}'\n",
            dir.join("server.crt").display(),
            dir.join("server.key").display()
        );
        let conf = self.data().join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).expect("initdb wrote postgresql.conf");
        text.push_str(&settings);
        std::fs::write(&conf, text).expect("postgresql.conf takes the TLS settings");
    }

    /// Starts the cluster's guardian: it waits on its input and, unless told `done` (the value
    /// was dropped and stops the cluster itself), stops the cluster and removes its folder, and
    /// says so on its error output (the test process's, inherited).
    fn guard(&self) -> (Child, ChildStdin) {
        let script = r#"
            if read -r word && [ "$word" = done ]; then exit 0; fi
            "$0" -D "$1" stop -m immediate -w >/dev/null 2>&1
            rm -rf "$2"
            echo "fourkings-tests: stopped the PostgreSQL server in $2, which its test process left running" >&2
        "#;
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(script)
            .arg(self.bin.join("pg_ctl"))
            .arg(self.data())
            .arg(self.dir.path())
            .env_remove("PGDATA")
            .env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(Stdio::null());
        if let Some((uid, gid)) = self.owner {
            command.uid(uid).gid(gid).current_dir("/");
        }
        let mut child = command.spawn().expect("sh starts");
        let input = child.stdin.take().expect("the guardian's input is a pipe");
        (child, input)
    }

    fn pg_ctl(&self, args: &[&str]) {
        let output = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(args)
            .output()
            .expect("pg_ctl runs");
        assert!(
            output.status.success(),
            "pg_ctl {args:?} failed: {}\n{}\nits log:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        command.env_remove("PGDATA").env("LC_ALL", "C");
        if let Some((uid, gid)) = self.owner {
            command.uid(uid).gid(gid).current_dir(self.dir.path());
        }
        command
    }

    fn data(&self) -> PathBuf {
        self.data.clone()
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        // At once and without checking: the folder goes next, and a test that failed must not
        // leave a server behind.
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["stop", "-m", "immediate", "-w"])
            .output();
        // Dismissed only once the server is down: a thread that drops this value as the process
        // exits (a server's storage writer) may be stopped anywhere in between.
        if let Some((mut guardian, mut input)) = self.guardian.take() {
            let _ = writeln!(input, "done");
            drop(input);
            let _ = guardian.wait();
        }
        // Removed here rather than by the folder's own drop, which keeps quiet when it fails: a
        // folder was once left behind inside the whole suite, and this says why if it is again.
        // A second try covers a file the server's last process wrote while the first went on.
        let path = self.dir.path();
        if let Err(first) = std::fs::remove_dir_all(path) {
            if let Err(again) = std::fs::remove_dir_all(path) {
                eprintln!(
                    "fourkings-tests: the PostgreSQL folder {} was not removed: {first}; then {again}",
                    path.display()
                );
            }
        }
    }
}

/// The folder of PostgreSQL's programs: the newest version Debian installed, or `initdb`'s on the
/// `PATH`.
fn programs() -> Option<PathBuf> {
    let debian = Path::new("/usr/lib/postgresql");
    let newest = std::fs::read_dir(debian)
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            Some((name.parse::<u32>().ok()?, name))
        })
        .max()
        .map(|(_, name)| debian.join(name).join("bin"))
        .filter(|bin| bin.join("initdb").is_file());
    newest.or_else(|| {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(PathBuf::from)
            .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
    })
}

fn is_root() -> bool {
    // The owner of a file made now is this process's effective user.
    let probe = tempfile::NamedTempFile::new().expect("a temporary file");
    std::os::unix::fs::MetadataExt::uid(&probe.as_file().metadata().expect("its metadata")) == 0
}

/// The `postgres` user's ids, from the password file.
fn postgres_user() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.first() == Some(&"postgres") && fields.len() > 3)
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
            .flatten()
    })
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// A TCP relay between the server under test and its database whose network can be cut: while
/// cut, nothing passes either way and nothing is closed, as when packets are lost on the way
/// (the server's connections hang rather than fail); mended, what waited goes on.
pub struct Relay {
    addr: std::net::SocketAddr,
    open: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// A relay on a free port of 127.0.0.1 to `database`, open.
    pub async fn to(database: &TestPostgres) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let addr = listener.local_addr().expect("its address");
        let target = format!("127.0.0.1:{}", database.port);
        let (open, watch) = tokio::sync::watch::channel(true);
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let target = target.clone();
                let watch = watch.clone();
                tokio::spawn(async move {
                    let Ok(server) = tokio::net::TcpStream::connect(&target).await else {
                        return;
                    };
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::join!(
                        pass(client_read, server_write, watch.clone()),
                        pass(server_read, client_write, watch),
                    );
                });
            }
        });
        Relay { addr, open, task }
    }

    /// The database's URL through the relay.
    pub fn url(&self) -> String {
        format!("postgres://{USER}@{}/postgres", self.addr)
    }

    /// Cuts the network (`false`) or mends it (`true`).
    pub fn set_open(&self, open: bool) {
        self.open.send_replace(open);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies `from` to `to` while the relay is open, waiting while it is cut.
async fn pass(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut open: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        if open.wait_for(|open| *open).await.is_err() {
            return;
        }
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        // What was read as the network was cut waits for it to mend, as a lost packet would be
        // sent again.
        if open.wait_for(|open| *open).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the process the test below starts, which forgets its cluster and exits.
    const FORGET: &str = "FOURKINGS_TESTS_FORGET_CLUSTER";

    #[test]
    fn a_cluster_whose_test_process_ends_without_dropping_it_is_stopped_and_removed() {
        if std::env::var_os(FORGET).is_some() {
            let cluster = TestPostgres::start();
            println!(" cluster {} {}", cluster.dir.path().display(), cluster.port);
            // As a server's storage thread still holding its clone when the process ends.
            std::mem::forget(cluster);
            std::process::exit(0);
        }
        let name = "postgres::tests::a_cluster_whose_test_process_ends_without_dropping_it_is_stopped_and_removed";
        // `output` returns when the process's outputs close: the guardian holds its error
        // output until it has stopped the cluster.
        let output = Command::new(std::env::current_exe().expect("the test binary"))
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(FORGET, "1")
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        // The harness writes the test's name on the same line.
        let (dir, port) = stdout
            .lines()
            .find_map(|line| line.split_once(" cluster ")?.1.split_once(' '))
            .unwrap_or_else(|| panic!("the forgetting process names its cluster: {stdout}"));
        assert!(
            stderr.contains(&format!("stopped the PostgreSQL server in {dir}")),
            "{stderr}"
        );
        assert!(!Path::new(dir).exists(), "{dir} is removed");
        let port: u16 = port.parse().expect("a port");
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "nothing listens on {port} any more"
        );
    }
}
