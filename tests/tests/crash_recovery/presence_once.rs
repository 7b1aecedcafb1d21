//! The restart's own `presence` events reach a client once: in its snapshot, or in its replay.

use anyhow::{Result, ensure};
use fourkings_protocol::{Event, Presence, SettingsPatch};
use fourkings_tests::{ServerProcess, fourkings_binary, seat, temp_dir};

use crate::base::Base;
use crate::peer::Peer;

/// The restart marks the people who were online `away` while nobody is connected. Those events
/// reach clients through snapshots and replays; they must not be sent again, out of order, to a
/// connection whose snapshot already showed them once someone else's request is handled (they
/// used to be, with the first request after a restart).
pub(crate) async fn run() -> Result<()> {
    let dir = temp_dir("crash");
    let database = dir.path().join("rooms.db");
    let env = [(
        "FOURKINGS_DATABASE",
        database.to_str().expect("a UTF-8 path"),
    )];
    let args = ["serve", "--addr", "127.0.0.1:0"];
    let mut server = ServerProcess::spawn(fourkings_binary!(), &args, &env);
    let base = Base::of(&server);
    let created = base.create(&SettingsPatch::default()).await?;
    let mut ann = Peer::open(&base, &created.id, "Ann".into()).await?;
    ann.take_seat(seat(0), "Ann").await?;
    let mut bob = Peer::open(&base, &created.id, "Bob".into()).await?;
    bob.take_seat(seat(1), "Bob").await?;
    bob.drain().await?;
    server.signal_and_wait("KILL");
    let server = ServerProcess::spawn(fourkings_binary!(), &args, &env);
    let base = Base::of(&server);
    // A newcomer's snapshot shows both players away (two events after Bob's version)...
    let (client, snapshot, _) = base.connect(&created.id).await?;
    ensure!(
        snapshot.v == bob.model.v + 2,
        "v {} after {}",
        snapshot.v,
        bob.model.v
    );
    let mut newcomer = Peer::open_with(client, &snapshot, "newcomer".into())?;
    // ... and after Bob is back, it receives only what came after its snapshot: Bob online.
    let (_, replay, _) = bob.reconnect(&base, &created.id, None, false).await?;
    ensure!(
        replay.len() == 3,
        "Bob missed the two away and his own online: {replay:?}"
    );
    newcomer.drain().await?;
    ensure!(
        newcomer.log.keys().copied().collect::<Vec<_>>() == [snapshot.v + 1],
        "the newcomer received {:?}",
        newcomer.log
    );
    ensure!(
        matches!(
            newcomer.log.get(&(snapshot.v + 1)),
            Some(Event::Presence {
                seat: s,
                presence: Presence::Online,
                ..
            }) if *s == seat(1)
        ),
        "the newcomer received {:?}",
        newcomer.log
    );
    Ok(())
}
