//! `fourkings`: the Four Kings game server and its tools. The program is `cli::main`, in the
//! library; this file adds the allocator. The tests package builds this same file as its
//! `fourkings-under-test` binary.

/// mimalloc rather than the system allocator: rooms keep every move, so the heap grows all the
/// time, and glibc grows it a page at a time (tests/perf/README.md, "mimalloc").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    fourkings_server::cli::main()
}
