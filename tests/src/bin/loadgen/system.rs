//! What the operating system says about the server, the load generator and everyone else: CPU
//! time (utime + stime) and resident memory from `/proc`.

use std::time::Instant;

use procfs::CurrentSI;
use procfs::process::Process;

/// CPU seconds of a process so far (all its threads, user and system time).
pub(crate) fn cpu_seconds(pid: i32) -> anyhow::Result<f64> {
    let stat = Process::new(pid)?.stat()?;
    Ok((stat.utime + stat.stime) as f64 / procfs::ticks_per_second() as f64)
}

/// A process's resident memory, in KiB.
pub(crate) fn rss_kib(pid: i32) -> anyhow::Result<u64> {
    Process::new(pid)?
        .status()?
        .vmrss
        .ok_or_else(|| anyhow::anyhow!("no VmRSS for {pid}"))
}

/// CPU seconds every core spent busy so far (user, nice, system, interrupts; not idle, not
/// waiting for the disk, not stolen by the hypervisor).
fn machine_busy_seconds() -> anyhow::Result<f64> {
    let total = procfs::KernelStats::current()?.total;
    let ticks = total.user
        + total.nice
        + total.system
        + total.irq.unwrap_or(0)
        + total.softirq.unwrap_or(0);
    Ok(ticks as f64 / procfs::ticks_per_second() as f64)
}

/// A reading of the CPU counters at one moment.
#[derive(Clone, Copy)]
pub(crate) struct Sample {
    at: Instant,
    server: f64,
    me: f64,
    machine: f64,
}

/// The CPU used between two samples, in cores (CPU seconds per second).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Usage {
    /// The window's length in seconds.
    pub(crate) seconds: f64,
    /// CPU seconds the server used.
    pub(crate) server_cpu: f64,
    /// CPU seconds the load generator used.
    pub(crate) loadgen_cpu: f64,
    /// CPU seconds everything else used (other processes, and interrupt time no process is
    /// charged for, such as part of the loopback traffic's softirq work).
    pub(crate) other_cpu: f64,
}

impl Usage {
    /// The server's share of one core over the window.
    pub(crate) fn server_cores(&self) -> f64 {
        self.server_cpu / self.seconds
    }

    /// The load generator's share of one core over the window.
    pub(crate) fn loadgen_cores(&self) -> f64 {
        self.loadgen_cpu / self.seconds
    }

    /// Everybody else's share of a core over the window.
    pub(crate) fn other_cores(&self) -> f64 {
        self.other_cpu / self.seconds
    }
}

/// Reads the counters for the server `pid`, this process and the machine.
pub(crate) fn sample(pid: i32) -> anyhow::Result<Sample> {
    Ok(Sample {
        at: Instant::now(),
        server: cpu_seconds(pid)?,
        me: cpu_seconds(std::process::id() as i32)?,
        machine: machine_busy_seconds()?,
    })
}

/// The CPU used from `start` to `end`.
pub(crate) fn usage(start: &Sample, end: &Sample) -> Usage {
    let server_cpu = end.server - start.server;
    let loadgen_cpu = end.me - start.me;
    let machine = end.machine - start.machine;
    Usage {
        seconds: end.at.duration_since(start.at).as_secs_f64(),
        server_cpu,
        loadgen_cpu,
        other_cpu: (machine - server_cpu - loadgen_cpu).max(0.0),
    }
}
