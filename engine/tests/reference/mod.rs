//! A reference move generator, for tests only.
//!
//! It is deliberately simple and shares no code with the engine's generator: its own board (a
//! 14×14 array of cells indexed `[file][rank]`), its own geometry written out from RULES.md (board
//! shape, pawn directions, castling squares, the start position), and the most direct reading of
//! the rules: generate every move a piece could make by its pattern, then play each one on a copy
//! of the board and keep it if the mover's king is not attacked afterwards, where "attacked" is
//! found by asking every live enemy piece whether it could capture on the king's square. From the
//! engine it takes only the vocabulary types (`Army`, `Role`, `Square`, `Move`, `RuleSet`) and,
//! through [`RefBoard::from_position`], a position's public state.
//!
//! The rule choices it implements (the same as the engine's):
//! - Enemies: in Teams the two armies that are not the mover's partner; in free-for-all every other
//!   army; in Duo the other colour. Partner pieces block and cannot be captured.
//! - Only *live* pieces attack: all pieces of a playing army, only the king of an army whose king
//!   walks, nothing of an army that is out. Grey pieces block and can be captured, the grey king
//!   included; a walking king may capture the grey pieces of its own army too.
//! - A king capture (where the rules allow it, of a live enemy king) is always legal; every other
//!   move must leave the mover's own king unattacked. An army without a king has no moves.
//! - An army whose king walks moves only its king and does not castle.
//! - Friendly capture (Duo) lets an army capture its own pieces except its king; the king itself
//!   makes friendly captures only where the rules turn that on.
//! - Castling: rights, king and rook at home, the squares between empty, the king's square, the
//!   square it crosses and the square it lands on not attacked; the king moves two squares toward
//!   the rook, the rook lands on the crossed square.
//! - En passant: a pawn may capture any enemy pawn whose double-step right is still open in the
//!   position, by moving to the skipped square (which must be empty) if it attacks that square; the
//!   pawn on the landed square is removed. A right opens only where en passant is on, and ends
//!   when a piece lands on its skipped square or takes its pawn.
//! - A pawn landing on its army's promotion line (its own rank `promotion_rank`, counting its back
//!   rank as 1) promotes to each role of the promotion set, unless pawn breakthrough is on (then it
//!   stays a pawn). Pawns double-step from their own rank 2.

use std::fmt;

use fourkings_engine::{
    Army, ArmyStatus, CastleSide, Format, Move, MoveKind, Position, Role, RuleSet, Square,
};

/// A piece on the reference board: army, role, promoted.
type Cell = Option<(Army, Role, bool)>;

/// The reference board's squares, indexed `[file][rank]`, 0-based.
type Cells = [[Cell; 14]; 14];

/// A coordinate `(file, rank)`, 0-based; may lie off the board.
type Xy = (i8, i8);

/// What kind of move a [`RefMove`] is (ordered, unlike the engine's `MoveKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RefKind {
    /// Any other move, captures and king captures included.
    Normal,
    /// A pawn's two-square step.
    DoubleStep,
    /// An en passant capture (`to` is the skipped square).
    EnPassant,
    /// Castling toward the king-side rook (`from`, `to` are the king's squares).
    CastleKing,
    /// Castling toward the queen-side rook.
    CastleQueen,
}

/// A move as the reference generator sees it: comparable and sortable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RefMove {
    pub(crate) from: Square,
    pub(crate) to: Square,
    pub(crate) kind: RefKind,
    pub(crate) promotion: Option<Role>,
}

impl RefMove {
    /// The reference form of an engine move.
    pub(crate) fn of(mv: Move) -> RefMove {
        let kind = match mv.kind() {
            MoveKind::Normal => RefKind::Normal,
            MoveKind::DoubleStep => RefKind::DoubleStep,
            MoveKind::EnPassant => RefKind::EnPassant,
            MoveKind::Castle(CastleSide::King) => RefKind::CastleKing,
            MoveKind::Castle(CastleSide::Queen) => RefKind::CastleQueen,
        };
        RefMove {
            from: mv.from(),
            to: mv.to(),
            kind,
            promotion: mv.promotion(),
        }
    }

    /// The engine form of the move.
    pub(crate) fn to_move(self) -> Move {
        let kind = match self.kind {
            RefKind::Normal => MoveKind::Normal,
            RefKind::DoubleStep => MoveKind::DoubleStep,
            RefKind::EnPassant => MoveKind::EnPassant,
            RefKind::CastleKing => MoveKind::Castle(CastleSide::King),
            RefKind::CastleQueen => MoveKind::Castle(CastleSide::Queen),
        };
        Move::new(self.from, self.to, kind, self.promotion)
    }
}

impl fmt::Display for RefMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "={role:?}")?;
        }
        match self.kind {
            RefKind::Normal => Ok(()),
            kind => write!(f, " ({kind:?})"),
        }
    }
}

fn xy(sq: Square) -> Xy {
    (sq.file() as i8, sq.rank() as i8)
}

fn square((f, r): Xy) -> Square {
    Square::new(f as u8, r as u8).expect("a coordinate on the board")
}

fn add((f, r): Xy, (df, dr): Xy) -> Xy {
    (f + df, r + dr)
}

/// The seat after `army`: Red, Blue, Yellow, Green, Red…
fn next_seat(army: Army) -> Army {
    match army {
        Army::Red => Army::Blue,
        Army::Blue => Army::Yellow,
        Army::Yellow => Army::Green,
        Army::Green => Army::Red,
    }
}

fn index(army: Army) -> usize {
    match army {
        Army::Red => 0,
        Army::Blue => 1,
        Army::Yellow => 2,
        Army::Green => 3,
    }
}

const ARMIES: [Army; 4] = [Army::Red, Army::Blue, Army::Yellow, Army::Green];

/// Which way `army`'s pawns move (RULES.md section 2). On the classic board White is Red and
/// Black is Yellow, so the same directions hold.
fn forward(army: Army) -> Xy {
    match army {
        Army::Red => (0, 1),
        Army::Blue => (1, 0),
        Army::Yellow => (0, -1),
        Army::Green => (-1, 0),
    }
}

const KNIGHT: [Xy; 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const ROOK_LINES: [Xy; 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const BISHOP_LINES: [Xy; 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];
const ALL_LINES: [Xy; 8] = [
    (0, 1),
    (1, 0),
    (0, -1),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, -1),
    (-1, 1),
];

/// The start position of the cross board, copied from the table in RULES.md section 2.
const CROSS_START: [(Army, &str); 4] = [
    (
        Army::Red,
        "d1 R e1 N f1 B g1 Q h1 K i1 B j1 N k1 R d2 P e2 P f2 P g2 P h2 P i2 P j2 P k2 P",
    ),
    (
        Army::Blue,
        "a11 R a10 N a9 B a8 Q a7 K a6 B a5 N a4 R b4 P b5 P b6 P b7 P b8 P b9 P b10 P b11 P",
    ),
    (
        Army::Yellow,
        "k14 R j14 N i14 B h14 Q g14 K f14 B e14 N d14 R d13 P e13 P f13 P g13 P h13 P i13 P j13 P k13 P",
    ),
    (
        Army::Green,
        "n4 R n5 N n6 B n7 Q n8 K n9 B n10 N n11 R m4 P m5 P m6 P m7 P m8 P m9 P m10 P m11 P",
    ),
];

/// The reference board: pieces and every right that decides the moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RefBoard {
    rules: RuleSet,
    /// The classic 8×8 board (Duo) rather than the cross.
    classic: bool,
    cells: Cells,
    turn: Army,
    status: [ArmyStatus; 4],
    /// Castling rights per army: `[king side, queen side]`.
    castling: [[bool; 2]; 4],
    /// Open en passant rights per army: `(skipped, landed)`.
    en_passant: [Option<(Xy, Xy)>; 4],
    halfmove_clock: u16,
}

impl RefBoard {
    /// The reference board of an engine position, read through its public API.
    pub(crate) fn from_position(pos: &Position, rules: &RuleSet) -> RefBoard {
        let mut cells: Cells = [[None; 14]; 14];
        for (sq, piece) in pos.pieces() {
            cells[sq.file() as usize][sq.rank() as usize] =
                Some((piece.army, piece.role, piece.promoted));
        }
        RefBoard {
            rules: *rules,
            classic: rules.format == Format::Duo,
            cells,
            turn: pos.turn(),
            status: ARMIES.map(|a| pos.status(a)),
            castling: ARMIES.map(|a| {
                [
                    pos.can_castle(a, CastleSide::King),
                    pos.can_castle(a, CastleSide::Queen),
                ]
            }),
            en_passant: ARMIES.map(|a| pos.en_passant(a).map(|ep| (xy(ep.skipped), xy(ep.landed)))),
            halfmove_clock: pos.halfmove_clock(),
        }
    }

    /// The start position of the cross board under `rules`, built from RULES.md alone.
    pub(crate) fn cross_start(rules: &RuleSet) -> RefBoard {
        assert_ne!(rules.format, Format::Duo, "the cross board");
        let mut cells: Cells = [[None; 14]; 14];
        for (army, list) in CROSS_START {
            let words: Vec<&str> = list.split(' ').collect();
            for pair in words.chunks(2) {
                let (f, r) = xy(pair[0].parse().unwrap());
                let role = match pair[1] {
                    "P" => Role::Pawn,
                    "N" => Role::Knight,
                    "B" => Role::Bishop,
                    "R" => Role::Rook,
                    "Q" => Role::Queen,
                    _ => Role::King,
                };
                cells[f as usize][r as usize] = Some((army, role, false));
            }
        }
        RefBoard {
            rules: *rules,
            classic: false,
            cells,
            turn: rules.first,
            status: [ArmyStatus::Playing; 4],
            castling: [[true; 2]; 4],
            en_passant: [None; 4],
            halfmove_clock: 0,
        }
    }

    /// Whether `(f, r)` is a square of the board: 8×8, or 14×14 without its 3×3 corners.
    fn exists(&self, (f, r): Xy) -> bool {
        if self.classic {
            (0..8).contains(&f) && (0..8).contains(&r)
        } else {
            let inside = (0..14).contains(&f) && (0..14).contains(&r);
            let corner = !(3..=10).contains(&f) && !(3..=10).contains(&r);
            inside && !corner
        }
    }

    fn at(cells: &Cells, (f, r): Xy) -> Cell {
        cells[f as usize][r as usize]
    }

    fn set(cells: &mut Cells, (f, r): Xy, cell: Cell) {
        cells[f as usize][r as usize] = cell;
    }

    /// How many ranks `(f, r)` lies in front of `army`'s back rank (0 on the back rank).
    fn own_rank(&self, army: Army, (f, r): Xy) -> i8 {
        let last = if self.classic { 7 } else { 13 };
        match army {
            Army::Red => r,
            Army::Blue => f,
            Army::Yellow => last - r,
            Army::Green => last - f,
        }
    }

    /// Where `army`'s king starts, and its king-side and queen-side rooks.
    fn castle_homes(&self, army: Army) -> (Xy, [Xy; 2]) {
        let sq = |name: &str| xy(name.parse().unwrap());
        let (king, king_side, queen_side) = match (self.classic, army) {
            (true, Army::Red) => ("e1", "h1", "a1"),
            (true, _) => ("e8", "h8", "a8"),
            (false, Army::Red) => ("h1", "k1", "d1"),
            (false, Army::Blue) => ("a7", "a4", "a11"),
            (false, Army::Yellow) => ("g14", "d14", "k14"),
            (false, Army::Green) => ("n8", "n11", "n4"),
        };
        (sq(king), [sq(king_side), sq(queen_side)])
    }

    fn partners(&self, a: Army, b: Army) -> bool {
        self.rules.format == Format::Teams
            && matches!(
                (a, b),
                (Army::Red, Army::Yellow)
                    | (Army::Yellow, Army::Red)
                    | (Army::Blue, Army::Green)
                    | (Army::Green, Army::Blue)
            )
    }

    fn takes_turns(&self, army: Army) -> bool {
        matches!(
            self.status[index(army)],
            ArmyStatus::Playing | ArmyStatus::KingWalking
        )
    }

    /// Whether a piece of `role` of `army` moves and attacks.
    fn live(&self, army: Army, role: Role) -> bool {
        match self.status[index(army)] {
            ArmyStatus::Playing => true,
            ArmyStatus::KingWalking => role == Role::King,
            ArmyStatus::Out | ArmyStatus::Absent => false,
        }
    }

    /// Whether a piece of `us` with role `by` may capture `victim`.
    fn can_capture(&self, us: Army, by: Role, (army, role, _): (Army, Role, bool)) -> bool {
        if army == us {
            // Its own pieces, never its king: with friendly capture (the king itself only when
            // the rules say so), and always for a walking king, whose pieces are grey.
            let walking = self.status[index(us)] == ArmyStatus::KingWalking;
            role != Role::King
                && (walking
                    || self.rules.friendly_capture
                        && (by != Role::King || self.rules.king_friendly_capture))
        } else if self.partners(us, army) {
            false
        } else if role == Role::King && self.takes_turns(army) {
            self.rules.king_capture
        } else {
            // Any other piece, and every grey piece, the grey king included.
            true
        }
    }

    /// Whether the piece on `from` could capture on `target` by its pattern, on `cells`.
    fn attacks(
        &self,
        cells: &Cells,
        from: Xy,
        (army, role, _): (Army, Role, bool),
        target: Xy,
    ) -> bool {
        let (df, dr) = (target.0 - from.0, target.1 - from.1);
        match role {
            Role::Pawn => {
                let (ff, fr) = forward(army);
                // Diagonally forward: one step forward plus one step to either side.
                (df, dr) == (ff + fr, fr + ff) || (df, dr) == (ff - fr, fr - ff)
            }
            Role::Knight => KNIGHT.contains(&(df, dr)),
            Role::King => (df, dr) != (0, 0) && df.abs() <= 1 && dr.abs() <= 1,
            Role::Bishop | Role::Rook | Role::Queen => {
                let straight = (df == 0) != (dr == 0);
                let diagonal = df != 0 && df.abs() == dr.abs();
                let fits = match role {
                    Role::Bishop => diagonal,
                    Role::Rook => straight,
                    _ => straight || diagonal,
                };
                if !fits {
                    return false;
                }
                let step = (df.signum(), dr.signum());
                let mut s = add(from, step);
                while s != target {
                    if !self.exists(s) || RefBoard::at(cells, s).is_some() {
                        return false;
                    }
                    s = add(s, step);
                }
                true
            }
        }
    }

    /// Whether a live enemy of `us` attacks `target` on `cells`.
    fn attacked(&self, cells: &Cells, target: Xy, us: Army) -> bool {
        for f in 0..14 {
            for r in 0..14 {
                let Some(piece @ (army, role, _)) = cells[f as usize][r as usize] else {
                    continue;
                };
                if army != us
                    && !self.partners(us, army)
                    && self.live(army, role)
                    && self.attacks(cells, (f, r), piece, target)
                {
                    return true;
                }
            }
        }
        false
    }

    fn king_of(cells: &Cells, army: Army) -> Option<Xy> {
        (0..14)
            .flat_map(|f| (0..14).map(move |r| (f, r)))
            .find(|&s| {
                RefBoard::at(cells, s).is_some_and(|(a, role, _)| a == army && role == Role::King)
            })
    }

    /// Whether `army`'s king is attacked by a live enemy.
    pub(crate) fn in_check(&self, army: Army) -> bool {
        RefBoard::king_of(&self.cells, army).is_some_and(|k| self.attacked(&self.cells, k, army))
    }

    /// Pushes a pawn move to `to`, once per promotion role if it lands on the promotion line.
    fn push_pawn(&self, us: Army, from: Xy, to: Xy, kind: RefKind, out: &mut Vec<RefMove>) {
        let (from, to_sq) = (square(from), square(to));
        if self.own_rank(us, to) + 1 == self.rules.promotion_rank as i8
            && !self.rules.pawn_breakthrough
        {
            for &role in self.rules.promotion.roles() {
                out.push(RefMove {
                    from,
                    to: to_sq,
                    kind,
                    promotion: Some(role),
                });
            }
        } else {
            out.push(RefMove {
                from,
                to: to_sq,
                kind,
                promotion: None,
            });
        }
    }

    /// Every move of the army to move by the pieces' patterns, before the king-safety test.
    fn pseudo_legal(&self) -> Vec<RefMove> {
        let us = self.turn;
        let mut out = Vec::new();
        if !self.takes_turns(us) {
            return out;
        }
        let normal = |from: Xy, to: Xy| RefMove {
            from: square(from),
            to: square(to),
            kind: RefKind::Normal,
            promotion: None,
        };
        for f in 0..14i8 {
            for r in 0..14i8 {
                let from = (f, r);
                let Some((army, role, _)) = RefBoard::at(&self.cells, from) else {
                    continue;
                };
                if army != us || !self.live(us, role) {
                    continue;
                }
                // A target a piece may land on: empty, or holding a piece it may capture.
                let open = |to: Xy| {
                    self.exists(to)
                        && RefBoard::at(&self.cells, to)
                            .is_none_or(|v| self.can_capture(us, role, v))
                };
                match role {
                    Role::Knight => {
                        for jump in KNIGHT {
                            let to = add(from, jump);
                            if open(to) {
                                out.push(normal(from, to));
                            }
                        }
                    }
                    Role::King => {
                        for line in ALL_LINES {
                            let to = add(from, line);
                            if open(to) {
                                out.push(normal(from, to));
                            }
                        }
                    }
                    Role::Bishop | Role::Rook | Role::Queen => {
                        let lines: &[Xy] = match role {
                            Role::Bishop => &BISHOP_LINES,
                            Role::Rook => &ROOK_LINES,
                            _ => &ALL_LINES,
                        };
                        for &line in lines {
                            let mut to = add(from, line);
                            while self.exists(to) {
                                match RefBoard::at(&self.cells, to) {
                                    None => out.push(normal(from, to)),
                                    Some(victim) => {
                                        if self.can_capture(us, role, victim) {
                                            out.push(normal(from, to));
                                        }
                                        break;
                                    }
                                }
                                to = add(to, line);
                            }
                        }
                    }
                    Role::Pawn => self.pawn_moves(us, from, &mut out),
                }
            }
        }
        if self.rules.castling && self.status[index(us)] == ArmyStatus::Playing {
            self.castles(us, &mut out);
        }
        out
    }

    fn pawn_moves(&self, us: Army, from: Xy, out: &mut Vec<RefMove>) {
        let (ff, fr) = forward(us);
        let one = add(from, (ff, fr));
        if self.exists(one) && RefBoard::at(&self.cells, one).is_none() {
            self.push_pawn(us, from, one, RefKind::Normal, out);
            let two = add(one, (ff, fr));
            if self.own_rank(us, from) == 1
                && self.exists(two)
                && RefBoard::at(&self.cells, two).is_none()
            {
                out.push(RefMove {
                    from: square(from),
                    to: square(two),
                    kind: RefKind::DoubleStep,
                    promotion: None,
                });
            }
        }
        for to in [add(from, (ff + fr, fr + ff)), add(from, (ff - fr, fr - ff))] {
            if !self.exists(to) {
                continue;
            }
            if let Some(victim) = RefBoard::at(&self.cells, to) {
                if self.can_capture(us, Role::Pawn, victim) {
                    self.push_pawn(us, from, to, RefKind::Normal, out);
                }
                continue;
            }
            if !self.rules.en_passant {
                continue;
            }
            for owner in ARMIES {
                let Some((skipped, landed)) = self.en_passant[index(owner)] else {
                    continue;
                };
                if owner == us || skipped != to {
                    continue;
                }
                let victim = RefBoard::at(&self.cells, landed);
                if victim.is_some_and(|v @ (a, role, _)| {
                    a == owner && role == Role::Pawn && self.can_capture(us, Role::Pawn, v)
                }) {
                    self.push_pawn(us, from, to, RefKind::EnPassant, out);
                }
            }
        }
    }

    fn castles(&self, us: Army, out: &mut Vec<RefMove>) {
        let (king, rooks) = self.castle_homes(us);
        if !RefBoard::at(&self.cells, king)
            .is_some_and(|(a, role, _)| a == us && role == Role::King)
        {
            return;
        }
        for (side, rook) in rooks.into_iter().enumerate() {
            if !self.castling[index(us)][side] {
                continue;
            }
            if !RefBoard::at(&self.cells, rook)
                .is_some_and(|(a, role, _)| a == us && role == Role::Rook)
            {
                continue;
            }
            let step = ((rook.0 - king.0).signum(), (rook.1 - king.1).signum());
            let mut s = add(king, step);
            let mut clear = true;
            while s != rook {
                clear &= RefBoard::at(&self.cells, s).is_none();
                s = add(s, step);
            }
            let crossed = add(king, step);
            let landing = add(crossed, step);
            if clear
                && [king, crossed, landing]
                    .iter()
                    .all(|&s| !self.attacked(&self.cells, s, us))
            {
                let kind = if side == 0 {
                    RefKind::CastleKing
                } else {
                    RefKind::CastleQueen
                };
                out.push(RefMove {
                    from: square(king),
                    to: square(landing),
                    kind,
                    promotion: None,
                });
            }
        }
    }

    /// The squares after `mv`, with nothing else changed.
    fn cells_after(&self, mv: RefMove) -> Cells {
        let mut cells = self.cells;
        let (from, to) = (xy(mv.from), xy(mv.to));
        let (army, role, promoted) =
            RefBoard::at(&cells, from).expect("a piece on the from-square");
        RefBoard::set(&mut cells, from, None);
        match mv.kind {
            RefKind::CastleKing | RefKind::CastleQueen => {
                let (_, rooks) = self.castle_homes(army);
                let rook_home = rooks[(mv.kind == RefKind::CastleQueen) as usize];
                let rook = RefBoard::at(&cells, rook_home);
                RefBoard::set(&mut cells, rook_home, None);
                let crossed = ((from.0 + to.0) / 2, (from.1 + to.1) / 2);
                RefBoard::set(&mut cells, crossed, rook);
            }
            RefKind::EnPassant => {
                let (_, landed) = self
                    .en_passant
                    .iter()
                    .flatten()
                    .find(|(skipped, _)| *skipped == to)
                    .expect("an open right");
                RefBoard::set(&mut cells, *landed, None);
            }
            RefKind::Normal | RefKind::DoubleStep => {}
        }
        // A promoted piece is marked as such only in free-for-all, where it scores 1.
        let landed = match mv.promotion {
            Some(role) => (army, role, self.rules.format == Format::FreeForAll),
            None => (army, role, promoted),
        };
        RefBoard::set(&mut cells, to, Some(landed));
        cells
    }

    /// Whether `mv` captures the king of an army that takes turns (a grey king is a grey piece).
    fn captures_king(&self, mv: RefMove) -> bool {
        mv.kind == RefKind::Normal
            && RefBoard::at(&self.cells, xy(mv.to))
                .is_some_and(|(army, role, _)| role == Role::King && self.takes_turns(army))
    }

    /// Whether `mv` lands on the mover's promotion line (for a pawn: promotes or breaks through).
    pub(crate) fn lands_on_promotion_line(&self, mv: RefMove) -> bool {
        self.own_rank(self.turn, xy(mv.to)) + 1 == self.rules.promotion_rank as i8
    }

    /// Every legal move of the army to move, sorted.
    pub(crate) fn legal_moves(&self) -> Vec<RefMove> {
        let us = self.turn;
        if RefBoard::king_of(&self.cells, us).is_none() {
            return Vec::new();
        }
        let mut moves: Vec<RefMove> = self
            .pseudo_legal()
            .into_iter()
            .filter(|&mv| {
                if self.captures_king(mv) {
                    return true;
                }
                let cells = self.cells_after(mv);
                let king = RefBoard::king_of(&cells, us).expect("the mover keeps its king");
                !self.attacked(&cells, king, us)
            })
            .collect();
        moves.sort();
        moves
    }

    /// The board after `mv` (which must be legal): pieces, castling and en passant rights, the
    /// halfmove clock, and the turn passed to the next army in seat order that takes turns. Army
    /// statuses do not change (a captured king's army stays as it was, as in the engine).
    pub(crate) fn play(&self, mv: RefMove) -> RefBoard {
        let us = self.turn;
        let (from, to) = (xy(mv.from), xy(mv.to));
        let mover = RefBoard::at(&self.cells, from).expect("a piece on the from-square");
        let captured = match mv.kind {
            RefKind::EnPassant => true,
            RefKind::Normal | RefKind::DoubleStep => RefBoard::at(&self.cells, to).is_some(),
            RefKind::CastleKing | RefKind::CastleQueen => false,
        };
        let mut next = self.clone();
        next.cells = self.cells_after(mv);
        next.halfmove_clock = if captured || mover.1 == Role::Pawn {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        if mv.kind == RefKind::DoubleStep && self.rules.en_passant {
            next.en_passant[index(us)] = Some((add(from, forward(us)), to));
        }
        // Another army's right ends when a piece lands on its skipped square or takes its pawn.
        for army in ARMIES.into_iter().filter(|&a| a != us) {
            if next.en_passant[index(army)]
                .is_some_and(|(skipped, landed)| skipped == to || landed == to)
            {
                next.en_passant[index(army)] = None;
            }
        }
        // A right ends when anything leaves or lands on its king's or rook's home square.
        for army in ARMIES {
            let (king, rooks) = self.castle_homes(army);
            for (side, rook) in rooks.into_iter().enumerate() {
                if [king, rook].iter().any(|&s| s == from || s == to) {
                    next.castling[index(army)][side] = false;
                }
            }
        }
        // The turn passes; every army whose seat it reaches or passes loses its en passant right.
        let mut seat = us;
        loop {
            seat = next_seat(seat);
            next.en_passant[index(seat)] = None;
            if next.takes_turns(seat) || seat == us {
                break;
            }
        }
        next.turn = seat;
        next
    }

    /// Counts the move sequences of `depth` plies, playing on copies of the board, as the engine's
    /// perft does. A king capture ends the game, as in Teams: it counts as a move at the last ply,
    /// and before that it is a finished line with no sequence of `depth` plies through it. (Meant
    /// for Teams and Duo; the engine's perft plays on after a king capture in free-for-all.)
    pub(crate) fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .filter(|&mv| !self.captures_king(mv))
            .map(|mv| self.play(mv).perft(depth - 1))
            .sum()
    }
}
