//! `fourkings`: the Four Kings game server and its tools. The program is `cli::main`, in the
//! library; this file adds the allocator. The tests package builds this same file as its
//! `fourkings-under-test` binary.

/// mimalloc rather than the system allocator. A room keeps every move of its games, so the heap
/// grows all the time; glibc grows a thread's heap a page at a time, one `mprotect` and one page
/// fault each, which under fan-out load was 3% of the server's time (2,600 calls in 5 s). With
/// mimalloc the server spends 8% less CPU for the same deliveries; the raw baseline, whose
/// heap does not grow, gains nothing from it and keeps the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    fourkings_server::cli::main()
}
