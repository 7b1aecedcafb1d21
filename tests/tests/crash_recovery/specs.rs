//! The 50 rooms: what each goes through ([`Twist`]), when it is set up ([`Stage`]), and the
//! settings, seats and moves of each ([`specs`]).

use fourkings_protocol::{CpuLevel, SeatIndex, SettingsPatch};
use fourkings_tests::seat;

/// Display names by seat (stored and shown as given).
pub(crate) const NAMES: [&str; 4] = ["Ann", "Bøb ♞", "Cleo", "Dev 🙂"];
const PRESETS: [&str; 6] = [
    "teams",
    "teams-house",
    "teams-classic",
    "ffa",
    "ffa-walking-kings",
    "duo",
];

/// What a room goes through besides moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Twist {
    Plain,
    /// Seat 1's player (person 1) drops before the kill: away, in the grace period.
    Away,
    /// The first person offers a draw and the third (if any) agrees; CPU seats agree by
    /// themselves. The others agree after the restart.
    DrawOffer,
    /// Everyone agrees to a draw: finished, awaiting a rematch.
    Drawn,
    /// The first person resigns: finished, awaiting a rematch.
    Finished,
    /// Teams-classic: seat 1 resigns and seat 3 is asked; after the restart seat 3 declines.
    ResignationRequest,
    /// A lobby: two seats taken, a CPU seat, settings changed, chat. After the restart someone
    /// takes the last seat and the host starts.
    Lobby,
    /// A lobby where the host moved a player and handed the host role over. After the restart
    /// the old host token is refused and the new one starts the game.
    LobbyReshuffle,
    /// The last mover takes the move back with a lifeline; after the restart that move is still
    /// refused (`taken_back`).
    Takeback,
    /// A first game resigned and a rematch under way.
    Rematch,
    /// A switch-partners session in its second game (seats moved with the rematch).
    SwitchPartners,
    /// Silent partners: team chat in the lobby only.
    SilentPartners,
}

/// When a room is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// First, all together.
    Early,
    /// Last among the rooms of people, so that their clocks are running but far from out at the
    /// kill.
    Timed,
    /// Started just before the kill: CPUs still playing when it comes.
    AllCpu,
}

#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub(crate) label: String,
    pub(crate) patch: SettingsPatch,
    /// Seats the CPU takes: set by the host before the start with a level, or left empty for the
    /// start to fill (`None`).
    pub(crate) cpu: Vec<(SeatIndex, Option<CpuLevel>)>,
    /// Seats left empty in a lobby.
    pub(crate) empty: Vec<SeatIndex>,
    /// Whether the host sits at seat 0 (else the watcher holds the host token).
    pub(crate) host_sits: bool,
    /// Moves the people play before the kill (in the current game).
    pub(crate) moves: usize,
    /// Whether the room has chat in every channel it allows.
    pub(crate) chat: bool,
    pub(crate) twist: Twist,
    pub(crate) stage: Stage,
}

fn spec(label: &str, preset: &str) -> Spec {
    Spec {
        label: label.to_owned(),
        patch: SettingsPatch {
            preset: Some(preset.to_owned()),
            ..SettingsPatch::default()
        },
        cpu: Vec::new(),
        empty: Vec::new(),
        host_sits: true,
        moves: 6,
        chat: true,
        twist: Twist::Plain,
        stage: Stage::Early,
    }
}

/// The 50 rooms.
pub(crate) fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    // Mid-game under every preset, three rooms each: more or fewer moves, chat in two of them,
    // the host seated or not.
    for (i, preset) in PRESETS.iter().enumerate() {
        for copy in 0..3 {
            let mut s = spec(&format!("{preset} mid-game {copy}"), preset);
            s.moves = 3 + 4 * copy + i % 3;
            s.chat = copy != 1;
            s.host_sits = copy != 2;
            specs.push(s);
        }
    }
    let twisted = |label: &str, preset: &str, twist: Twist| {
        let mut s = spec(label, preset);
        s.twist = twist;
        s
    };
    specs.push(twisted("teams, a player away", "teams", Twist::Away));
    specs.push(twisted("ffa, a player away", "ffa", Twist::Away));
    specs.push(twisted("teams, draw offered", "teams", Twist::DrawOffer));
    let mut s = twisted("ffa with CPUs, draw offered", "ffa", Twist::DrawOffer);
    s.cpu = vec![(seat(1), Some(CpuLevel::Easy)), (seat(3), None)];
    specs.push(s);
    specs.push(twisted(
        "teams-house, resigned",
        "teams-house",
        Twist::Finished,
    ));
    specs.push(twisted("duo, drawn", "duo", Twist::Drawn));
    specs.push(twisted(
        "teams-classic, resignation asked",
        "teams-classic",
        Twist::ResignationRequest,
    ));
    let mut s = twisted("lobby, settings changed", "teams", Twist::Lobby);
    s.cpu = vec![(seat(3), Some(CpuLevel::Easy))];
    s.empty = vec![seat(2)];
    specs.push(s);
    let mut s = twisted("lobby, reshuffled", "teams-house", Twist::LobbyReshuffle);
    s.empty = vec![seat(3)];
    specs.push(s);
    let mut s = twisted("teams, lifeline taken", "teams", Twist::Takeback);
    s.patch.lifelines = Some(true);
    s.moves = 5;
    specs.push(s);
    let mut s = twisted("teams, rematch", "teams", Twist::Rematch);
    s.moves = 5;
    specs.push(s);
    let mut s = twisted("teams, switch partners", "teams", Twist::SwitchPartners);
    s.patch.switch_partners = Some(true);
    s.moves = 4;
    specs.push(s);
    let mut s = twisted("teams, silent partners", "teams", Twist::SilentPartners);
    s.patch.silent_partners = Some(true);
    specs.push(s);
    // People with CPUs.
    let mut s = spec("teams, two CPUs", "teams");
    s.cpu = vec![(seat(1), None), (seat(3), None)];
    specs.push(s);
    let mut s = spec("duo, two CPUs", "duo");
    s.cpu = vec![
        (seat(2), Some(CpuLevel::Easy)),
        (seat(3), Some(CpuLevel::Hard)),
    ];
    specs.push(s);
    let mut s = spec("ffa-walking-kings, three CPUs", "ffa-walking-kings");
    s.cpu = vec![
        (seat(1), Some(CpuLevel::Easy)),
        (seat(2), None),
        (seat(3), Some(CpuLevel::Medium)),
    ];
    s.moves = 5;
    specs.push(s);
    let mut s = spec("teams-classic, two CPUs", "teams-classic");
    s.cpu = vec![(seat(2), Some(CpuLevel::Hard)), (seat(3), None)];
    s.patch.cpu_level = Some(CpuLevel::Easy);
    specs.push(s);
    // Clocks running.
    for (i, preset) in PRESETS.iter().enumerate() {
        let mut s = spec(&format!("{preset}, turn limit 60"), preset);
        s.patch.turn_limit = Some(60);
        s.moves = 3 + i % 3;
        s.chat = i % 2 == 0;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    for preset in ["teams", "ffa"] {
        let mut s = spec(&format!("{preset}, turn limit 30"), preset);
        s.patch.turn_limit = Some(30);
        s.moves = 4;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    for (minutes, limit) in [(3, 0), (5, 0), (10, 0), (3, 30)] {
        let mut s = spec(
            &format!("duo, team clock {minutes}, turn limit {limit}"),
            "duo",
        );
        s.patch.team_clock = Some(minutes);
        s.patch.turn_limit = Some(limit);
        s.moves = 5;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    // CPUs only.
    for (preset, levels) in [
        (
            "teams",
            [Some(CpuLevel::Easy), None, Some(CpuLevel::Hard), None],
        ),
        ("ffa-walking-kings", [None; 4]),
        ("duo", [Some(CpuLevel::Medium), None, None, None]),
    ] {
        let mut s = spec(&format!("{preset}, CPUs only"), preset);
        s.cpu = SeatIndex::ALL.into_iter().zip(levels).collect();
        s.host_sits = false;
        s.chat = false;
        s.stage = Stage::AllCpu;
        specs.push(s);
    }
    assert_eq!(specs.len(), 50);
    specs
}
