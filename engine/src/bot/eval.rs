//! The static evaluation: what a quiet position is worth to each army, and how the bot weighs the
//! armies against each other (its team against the other in Teams and Duo, itself against the
//! rest in free-for-all, where points count too).
//!
//! Each army's terms: material, piece placement (central minor pieces and queens), mobility of
//! its pieces, pawn progress toward its promotion line, and king safety: enemy pieces near the
//! king (worse when both enemies of a team gang up on it), the pawn shield, and a check still
//! pending before its owner's turn. In Teams, pieces of both partners near the same enemy king
//! earn a coordination bonus. Developed pieces count, more when both partners have them, and so
//! do a knight one jump from checking an enemy king, pieces that attack greater enemy pieces, and
//! rooks in the middle of the board or with no pawn ahead.

use crate::army::Army;
use crate::board::{ArmyStatus, WALL, at, class, role_bits};
use crate::geometry::{DIRECTIONS, KNIGHT_JUMPS, pawn_captures, pawn_forward, step};
use crate::piece::Role;
use crate::position::Position;
use crate::rules::Format;
use crate::square::Square;

/// Material in centipawns by role bits (index 0 unused; kings are beyond price).
pub(crate) const VALUE: [i32; 8] = [0, 100, 300, 350, 500, 950, 0, 0];

/// Weight of one free-for-all point, in centipawns: points decide the game, so a point is worth
/// about a pawn of material.
pub(crate) const POINT: i32 = 100;

const MOBILITY: [i32; 8] = [0, 0, 4, 4, 3, 2, 0, 0];
/// How much an enemy piece near a king worries it, per role.
const TROPISM: [i32; 8] = [0, 0, 7, 5, 6, 10, 0, 0];
const SHIELD_PAWN: i32 = 12;
const PENDING_CHECK: i32 = 60;
const COORDINATION: i32 = 12;
/// An enemy piece attacked by a piece worth at least this much less (it must move, or be lost).
const THREAT_GAIN: i32 = 100;
/// What such a threat is worth to the attacker's army.
const THREAT: i32 = 60;
/// How much a piece bearing on a square next to an enemy king counts, per role.
const KING_ATTACKER: [i32; 8] = [0, 25, 30, 30, 40, 50, 0, 0];
/// Percent of the attackers' weight that counts, by how many pieces bear on one square.
const ATTACK_WEIGHT: [i32; 9] = [0, 50, 100, 120, 150, 200, 250, 300, 400];
/// Pieces of two enemy armies attacking around one king.
const TWO_ARMIES_ATTACK: i32 = 150;
/// A king off its back rank while an enemy has a queen.
const OFF_BACK_RANK: i32 = 50;
/// A king whose front lines are open while an enemy has a queen.
const UNCOVERED: i32 = 75;
/// A developed piece (a knight off its back rank; a bishop, rook or queen with five moves or
/// more beyond its army's two back ranks).
const ACTIVE_PIECE: i32 = 35;
/// Per pair of developed pieces of two partners: an attack needs both armies.
const ACTIVE_TOGETHER: i32 = 20;
/// Moves beyond the two back ranks that make a bishop, rook or queen developed.
const ACTIVE_MOVES: i32 = 5;
/// A knight one jump from a square that checks an enemy king.
const KNIGHT_REACH: i32 = 100;
/// A rook in the middle of the board (four squares or more from every edge).
const ROOK_CENTRAL: i32 = 50;
/// A rook elsewhere with no pawn in the six squares ahead of it.
const ROOK_OPEN: i32 = 25;

/// The cell offsets two knight jumps lead to, from −66 to 66 (index: offset + 66).
const TWO_JUMPS: [bool; 133] = {
    let mut table = [false; 133];
    let mut i = 0;
    while i < KNIGHT_JUMPS.len() {
        let mut j = 0;
        while j < KNIGHT_JUMPS.len() {
            table[(KNIGHT_JUMPS[i] as i32 + KNIGHT_JUMPS[j] as i32 + 66) as usize] = true;
            j += 1;
        }
        i += 1;
    }
    table
};

/// Whether a knight on `knight` reaches a square that checks a king on `king` in one jump.
#[inline]
fn knight_reaches(knight: Square, king: Square) -> bool {
    // Two jumps move at most four files; further apart, an offset would wrap to the next rank.
    let files = (king.file() as i32 - knight.file() as i32).abs();
    let offset = king.cell() as i32 - knight.cell() as i32;
    files <= 4 && offset.abs() <= 66 && TWO_JUMPS[(offset + 66) as usize]
}

/// Chebyshev distance between two squares.
#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// How central a square is: 0 in a corner, up to `2 * (size - 1)` in the middle.
#[inline]
fn centrality(sq: Square, size: i32) -> i32 {
    let n = size - 1;
    let df = (2 * sq.file() as i32 - n).abs();
    let dr = (2 * sq.rank() as i32 - n).abs();
    (2 * n - df - dr).max(0)
}

/// Per-army terms of one position, and which armies' pieces crowd each king.
pub(crate) struct ArmyTerms {
    /// Everything but the king-safety penalties that depend on who is whose enemy.
    pub(crate) own: [i32; 4],
    /// Danger to each army's king from each enemy army.
    pub(crate) danger: [[i32; 4]; 4],
    /// Each army's developed pieces (counted with [`Features::activation`]).
    pub(crate) active: [i32; 4],
}

/// Which evaluation terms beyond the basic ones are in force (each measured on its own).
#[derive(Clone, Copy, Debug, Default, Hash)]
pub(crate) struct Features {
    /// Enemy pieces bearing on the squares around each king, and a king without cover.
    pub(crate) king_zone: bool,
    /// Pieces attacked by lesser enemy pieces.
    pub(crate) threats: bool,
    /// Developed pieces, more when both partners of a team have them.
    pub(crate) activation: bool,
    /// Knights one jump from checking an enemy king.
    pub(crate) knight_reach: bool,
    /// Threats at twice their weight (measured as a gain in Teams only).
    pub(crate) heavy_threats: bool,
    /// Rooks in the middle of the board, or with no pawn ahead.
    pub(crate) rooks: bool,
}

/// The terms of every army in play (grey pieces are worth nothing to anyone).
// One piece: one walk over every piece's moves feeds mobility, the king zones and the threats
// at once; the walk is the evaluation's cost.
pub(crate) fn army_terms(pos: &Position, promotion_rank: u8, features: Features) -> ArmyTerms {
    let mut terms = ArmyTerms {
        own: [0; 4],
        danger: [[0; 4]; 4],
        active: [0; 4],
    };
    let threat_weight = if features.heavy_threats {
        2 * THREAT
    } else {
        THREAT
    };
    let size = pos.kind.size() as i32;
    let kings: [Option<Square>; 4] = Army::ALL.map(|a| {
        (pos.status[a] == ArmyStatus::Playing)
            .then(|| pos.king(a))
            .flatten()
    });
    let mut zones = features.king_zone.then(|| Zones::new(pos, &kings));
    let mut queens = [false; 4];
    for army in Army::ALL {
        if pos.status[army] != ArmyStatus::Playing {
            continue;
        }
        let a = army.index();
        let cls = &pos.classes[a];
        let enemies = Army::ALL
            .iter()
            .filter(|&&e| pos.is_enemy(army, e))
            .fold(0u8, |m, e| m | 1 << e.index());
        let mut score = 0;
        for sq in pos.occupied[a] {
            let code = at(&pos.cells, sq);
            let role = role_bits(code);
            score += VALUE[role as usize];
            match role {
                r if r == Role::Pawn as u8 => {
                    score += pawn_progress(pos, army, sq, promotion_rank);
                    if features.threats {
                        score += pawn_threats(pos, army, sq) * threat_weight;
                    }
                    if let Some(zones) = &mut zones {
                        for d in pawn_captures(army) {
                            zones.attack(step(sq, d), a, r, enemies);
                        }
                    }
                }
                r if r == Role::King as u8 => {
                    score += king_shelter(pos, army, sq);
                }
                r => {
                    queens[a] |= r == Role::Queen as u8;
                    let mut forward = 0;
                    // A knight's development is where it stands, not where it goes.
                    let count_forward = features.activation && r != Role::Knight as u8;
                    let mut bears_on = |to: Square, reached: bool| {
                        if let Some(zones) = &mut zones {
                            zones.attack(to, a, r, enemies);
                        }
                        if reached && count_forward && pos.kind.own_rank(army, to) >= 2 {
                            forward += 1;
                        }
                    };
                    let (moves, threats) = mobility(pos, cls, sq, r, &mut bears_on);
                    score += moves * MOBILITY[r as usize];
                    if features.activation {
                        let developed = if r == Role::Knight as u8 {
                            pos.kind.own_rank(army, sq) != 0
                        } else {
                            forward >= ACTIVE_MOVES
                        };
                        terms.active[a] += i32::from(developed);
                    }
                    if features.knight_reach && r == Role::Knight as u8 {
                        for (victim, king) in kings.iter().enumerate() {
                            if let Some(king) = *king {
                                if enemies & 1 << victim != 0 && knight_reaches(sq, king) {
                                    score += KNIGHT_REACH;
                                }
                            }
                        }
                    }
                    if features.threats {
                        score += threats * threat_weight;
                    }
                    if r != Role::Rook as u8 {
                        score += centrality(sq, size) * 2;
                    } else if features.rooks {
                        score += rook_placement(pos, army, sq, size);
                    }
                    // Crowding enemy kings.
                    for (victim, king) in kings.iter().enumerate() {
                        let Some(king) = *king else { continue };
                        if victim == a || !pos.is_enemy(army, Army::ALL[victim]) {
                            continue;
                        }
                        let d = distance(sq, king);
                        if d <= 3 {
                            terms.danger[victim][a] += TROPISM[r as usize] * (4 - d);
                        }
                    }
                }
            }
        }
        terms.own[a] = score;
    }
    if let Some(zones) = &zones {
        for army in Army::ALL {
            let Some(king) = kings[army.index()] else {
                continue;
            };
            let enemy_queen = Army::ALL
                .into_iter()
                .any(|e| queens[e.index()] && pos.is_enemy(army, e));
            terms.own[army.index()] -= zones.danger(pos, army, king, enemy_queen);
        }
    }
    terms
}

/// The squares around each king (its own square and its neighbours, not those on its back
/// rank), and what bears on each: gathered while the evaluation walks every piece's moves, since
/// looking for the attackers of 36 squares afresh cost a tenth of the search's time.
struct Zones {
    /// For each cell, the armies whose king's zone it is in.
    armies_at: [u8; 256],
    kings: [Option<Square>; 4],
    /// By king and zone square (in the order of [`ZONE_OFFSETS`]): the attackers' weight and
    /// number.
    weight: [[i32; 9]; 4],
    count: [[u8; 9]; 4],
    /// By king: the enemy armies bearing on its zone.
    attackers: [u8; 4],
}

/// Where the zone's squares lie from the king: itself, then the eight directions.
const ZONE_OFFSETS: [i8; 9] = [
    0,
    DIRECTIONS[0],
    DIRECTIONS[1],
    DIRECTIONS[2],
    DIRECTIONS[3],
    DIRECTIONS[4],
    DIRECTIONS[5],
    DIRECTIONS[6],
    DIRECTIONS[7],
];

impl Zones {
    fn new(pos: &Position, kings: &[Option<Square>; 4]) -> Zones {
        let mut armies_at = [0u8; 256];
        for (k, king) in kings.iter().enumerate() {
            let Some(king) = *king else { continue };
            for (slot, &d) in ZONE_OFFSETS.iter().enumerate() {
                let sq = step(king, d);
                if at(&pos.cells, sq) & WALL != 0 {
                    continue;
                }
                let behind = slot > 0 && pos.kind.own_rank(Army::ALL[k], sq) == 0;
                if !behind {
                    armies_at[sq.cell() as usize] |= 1 << k;
                }
            }
        }
        Zones {
            armies_at,
            kings: *kings,
            weight: [[0; 9]; 4],
            count: [[0; 9]; 4],
            attackers: [0; 4],
        }
    }

    /// A piece (`role`) of army `army`, whose enemies are the armies of `enemies`, bears on `to`.
    #[inline]
    fn attack(&mut self, to: Square, army: usize, role: u8, enemies: u8) {
        let mut kings = self.armies_at[to.cell() as usize] & enemies;
        while kings != 0 {
            let k = kings.trailing_zeros() as usize;
            kings &= kings - 1;
            let Some(king) = self.kings[k] else { continue };
            let offset = to.cell() as i16 - king.cell() as i16;
            let Some(slot) = ZONE_OFFSETS.iter().position(|&d| i16::from(d) == offset) else {
                continue;
            };
            self.weight[k][slot] += KING_ATTACKER[role as usize];
            self.count[k][slot] += 1;
            self.attackers[k] |= 1 << army;
        }
    }

    /// What bears on the squares of `army`'s king's zone: each square's attackers by weight,
    /// more than in proportion as more of them bear on it.
    fn danger_of_squares(&self, army: Army) -> i32 {
        let k = army.index();
        (0..9)
            .map(|slot| {
                let count = usize::from(self.count[k][slot]).min(ATTACK_WEIGHT.len() - 1);
                self.weight[k][slot] * ATTACK_WEIGHT[count] / 100
            })
            .sum()
    }

    /// The danger to `army`'s king at `king`: enemy pieces bearing on the squares around it
    /// (worse the more of them bear on one square, and worse again when pieces of two enemy
    /// armies take part, as both move before the king's owner moves again), and a king off its
    /// back rank or without cover in front. With no enemy queen on the board the danger is
    /// halved.
    fn danger(&self, pos: &Position, army: Army, king: Square, enemy_queen: bool) -> i32 {
        let k = army.index();
        let mut danger = self.danger_of_squares(army);
        if self.attackers[k].count_ones() > 1 {
            danger += TWO_ARMIES_ATTACK;
        }
        if enemy_queen {
            let on_back_rank = pos.kind.own_rank(army, king) == 0;
            let covered = king_covered(pos, army, king);
            if !on_back_rank {
                danger += OFF_BACK_RANK;
            }
            if !covered {
                danger += UNCOVERED;
            }
            if !on_back_rank && !covered {
                danger += OFF_BACK_RANK;
            }
        } else {
            danger /= 2;
        }
        danger
    }
}

/// Whether each of the three lines in front of the king is closed within two squares by one of
/// its own pieces or the board's edge.
fn king_covered(pos: &Position, army: Army, king: Square) -> bool {
    let fwd = pawn_forward(army);
    let [left, right] = pawn_captures(army);
    [fwd, left, right].into_iter().all(|d| {
        (1..=2).any(|n| {
            let sq = step(king, d * n);
            let code = at(&pos.cells, sq);
            code & WALL != 0 || (code != 0 && (code >> 3) & 3 == army as u8)
        })
    })
}

/// Enemy pieces a pawn of `army` on `sq` attacks that are worth more than a pawn.
#[inline]
fn pawn_threats(pos: &Position, army: Army, sq: Square) -> i32 {
    let cls = &pos.classes[army.index()];
    pawn_captures(army)
        .into_iter()
        .filter(|&d| {
            let code = at(&pos.cells, step(sq, d));
            cls[code as usize] & class::CAPTURE != 0
                && VALUE[role_bits(code) as usize] >= THREAT_GAIN + VALUE[1]
        })
        .count() as i32
}

/// Pseudo-legal mobility of a knight or slider, and how many enemy pieces it attacks that are
/// worth clearly more than itself.
#[inline]
fn mobility(
    pos: &Position,
    cls: &[u16; 256],
    from: Square,
    role: u8,
    mut bears_on: impl FnMut(Square, bool),
) -> (i32, i32) {
    use class::{CAPTURE, EMPTY};
    let mut n = 0;
    let mut threats = 0;
    let own_value = VALUE[role as usize];
    let mut threat = |code: u8| {
        if VALUE[role_bits(code) as usize] >= own_value + THREAT_GAIN {
            threats += 1;
        }
    };
    if role == Role::Knight as u8 {
        for &j in &KNIGHT_JUMPS {
            let to = step(from, j);
            let code = at(&pos.cells, to);
            let f = cls[code as usize];
            let reached = f & (EMPTY | CAPTURE) != 0;
            // A wall is in no king's zone: no need to tell it apart.
            bears_on(to, reached);
            if reached {
                n += 1;
            }
            if f & CAPTURE != 0 {
                threat(code);
            }
        }
        return (n, threats);
    }
    let dirs = match role {
        r if r == Role::Bishop as u8 => 4..8,
        r if r == Role::Rook as u8 => 0..4,
        _ => 0..8,
    };
    for &d in &DIRECTIONS[dirs] {
        let mut to = step(from, d);
        loop {
            let code = at(&pos.cells, to);
            let f = cls[code as usize];
            // A wall is in no king's zone: no need to tell it apart.
            bears_on(to, f & (EMPTY | CAPTURE) != 0);
            if f & EMPTY != 0 {
                n += 1;
                to = step(to, d);
                continue;
            }
            if f & CAPTURE != 0 {
                n += 1;
                threat(code);
            }
            break;
        }
    }
    (n, threats)
}

/// A rook's place: in the middle of the board, or on a line that no pawn blocks ahead.
#[inline]
fn rook_placement(pos: &Position, army: Army, sq: Square, size: i32) -> i32 {
    let middle = 4..=size - 5;
    if middle.contains(&(sq.file() as i32)) && middle.contains(&(sq.rank() as i32)) {
        return ROOK_CENTRAL;
    }
    let mut ahead = sq;
    for _ in 0..6 {
        ahead = step(ahead, pawn_forward(army));
        let code = at(&pos.cells, ahead);
        if code & WALL != 0 {
            break;
        }
        if code != 0 && role_bits(code) == Role::Pawn as u8 {
            return 0;
        }
    }
    ROOK_OPEN
}

/// A pawn's progress toward its promotion line: slow at first, then urgent.
#[inline]
pub(crate) fn pawn_progress(pos: &Position, army: Army, sq: Square, promotion_rank: u8) -> i32 {
    let rank = pos.kind.own_rank(army, sq) as i32;
    // Own ranks 1 (start) to promotion_rank - 2 (one step from the line, 0-based).
    let span = (promotion_rank as i32 - 2).max(1);
    let progress = (rank - 1).clamp(0, span);
    let mut bonus = 120 * progress * progress / (span * span);
    // Pawns that have left the start line are worth a little more in the centre.
    if progress > 0 {
        bonus += centrality(sq, pos.kind.size() as i32) / 2;
    }
    bonus
}

/// Own pawns in front of a king still near its back rank.
#[inline]
fn king_shelter(pos: &Position, army: Army, king: Square) -> i32 {
    if pos.kind.own_rank(army, king) > 1 {
        return 0;
    }
    let pawn = Role::Pawn as u8 | (army as u8) << 3;
    let fwd = pawn_forward(army);
    let mut n = 0;
    for d in [fwd, pawn_captures(army)[0], pawn_captures(army)[1]] {
        if at(&pos.cells, step(king, d)) & !crate::piece::PROMOTED == pawn {
            n += 1;
        }
    }
    n * SHIELD_PAWN
}

/// How the bot weighs the armies: its own side against the others.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Perspective {
    pub(crate) root: Army,
    pub(crate) format: Format,
    pub(crate) promotion_rank: u8,
    pub(crate) features: Features,
}

impl Perspective {
    /// Whether `army` is on the bot's side (itself, or its partner in Teams, or its own colour
    /// in Duo).
    #[inline]
    pub(crate) fn is_ally(&self, army: Army) -> bool {
        army == self.root || (self.format == Format::Teams && army == self.root.opposite())
    }

    /// The position's value to the bot's side, in centipawns, free-for-all points included.
    pub(crate) fn evaluate(&self, pos: &Position, points: &[i32; 4]) -> i32 {
        let terms = army_terms(pos, self.promotion_rank, self.features);
        let mut value = [0i32; 4];
        for army in Army::ALL {
            if pos.status[army] != ArmyStatus::Playing {
                continue;
            }
            let a = army.index();
            let mut v = terms.own[a];
            let dangers = terms.danger[a];
            let total: i32 = dangers.iter().sum();
            let attackers = dangers.iter().filter(|&&d| d > 0).count() as i32;
            // Two enemies around one king are worse than twice one.
            v -= total * (1 + attackers) / 2;
            if army != pos.turn && pos.is_check(army) {
                v -= PENDING_CHECK;
            }
            v += terms.active[a] * ACTIVE_PIECE;
            if self.format == Format::Teams {
                // Half the pair's bonus to each partner.
                v += terms.active[a] * terms.active[army.opposite().index()] * ACTIVE_TOGETHER / 2;
            }
            if self.format == Format::Teams {
                // Both partners near the same enemy king.
                let partner = army.opposite().index();
                for victim in 0..4 {
                    let (mine, theirs) = (terms.danger[victim][a], terms.danger[victim][partner]);
                    if mine > 0 && theirs > 0 {
                        v += COORDINATION.min(mine.min(theirs));
                    }
                }
            }
            value[a] = v;
        }
        self.combine(pos, &value, points)
    }

    /// A quick estimate from each army's material and pawn progress (kept up to date by the
    /// search). The pruning rules use it as the static value far from the leaves, where a full
    /// evaluation at every node would cost more than it decides.
    pub(crate) fn estimate(&self, pos: &Position, material: &[i32; 4], points: &[i32; 4]) -> i32 {
        let value = Army::ALL.map(|a| {
            if pos.status[a] == ArmyStatus::Playing {
                material[a.index()]
            } else {
                0
            }
        });
        self.combine(pos, &value, points)
    }

    /// The armies' values weighed from the bot's side.
    fn combine(&self, pos: &Position, value: &[i32; 4], points: &[i32; 4]) -> i32 {
        match self.format {
            Format::Teams | Format::Duo => Army::ALL
                .iter()
                .map(|&a| {
                    if self.is_ally(a) {
                        value[a.index()]
                    } else {
                        -value[a.index()]
                    }
                })
                .sum(),
            Format::FreeForAll => self.free_for_all(pos, value, points),
        }
    }

    /// Free-for-all: own points and pieces against the others' average, and against the leader
    /// among them (who is the one to beat).
    fn free_for_all(&self, pos: &Position, value: &[i32; 4], points: &[i32; 4]) -> i32 {
        let root = self.root.index();
        let others: Vec<usize> = (0..4)
            .filter(|&a| a != root && pos.status[Army::ALL[a]] != ArmyStatus::Absent)
            .collect();
        if others.is_empty() {
            return value[root] + points[root] * POINT;
        }
        let n = others.len() as i32;
        let their_value: i32 = others.iter().map(|&a| value[a]).sum::<i32>() / n;
        let best_points = others.iter().map(|&a| points[a]).max().unwrap_or(0);
        let mean_points = others.iter().map(|&a| points[a]).sum::<i32>() / n;
        let own = if pos.status[self.root] == ArmyStatus::Playing {
            value[root]
        } else {
            // Out: its pieces will never score again.
            -2_000
        };
        own - their_value + (2 * points[root] - best_points - mean_points) * POINT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn the_start_position_is_level_for_every_army() {
        for preset in [Preset::Teams, Preset::Ffa, Preset::Duo] {
            let rules = preset.rules();
            let pos = Position::new(&rules).unwrap();
            for root in pos.board().armies().iter() {
                let p = Perspective {
                    root,
                    format: rules.format,
                    promotion_rank: rules.promotion_rank,
                    features: Features {
                        king_zone: true,
                        threats: true,
                        activation: true,
                        knight_reach: true,
                        heavy_threats: true,
                        rooks: true,
                    },
                };
                assert_eq!(p.evaluate(&pos, &[0; 4]), 0, "{preset} {root}");
            }
        }
    }

    #[test]
    fn heavier_threats_double_what_a_threat_is_worth() {
        // Red's knight on e5 attacks Blue's queen on f7, and nothing else attacks anything.
        let fen4 = "R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-\
            6,yK,7/14/14/14/14/14/13,gK/bK,4,bQ,8/14/4,rN,9/14/14/14/7,rK,6";
        let rules = Preset::Teams.rules();
        let pos =
            Position::from_setup(&crate::notation::parse_fen4(fen4).unwrap(), &rules).unwrap();
        let own = |threats, heavy_threats| {
            let features = Features {
                threats,
                heavy_threats,
                ..Features::default()
            };
            army_terms(&pos, rules.promotion_rank, features).own
        };
        let red = Army::Red.index();
        assert_eq!(own(true, false)[red] - own(false, false)[red], THREAT);
        assert_eq!(own(true, true)[red] - own(false, false)[red], 2 * THREAT);
        // No other army threatens anything.
        for army in [Army::Blue, Army::Yellow, Army::Green] {
            let a = army.index();
            assert_eq!(own(true, true)[a], own(false, false)[a], "{army}");
        }
    }

    #[test]
    fn a_rook_counts_in_the_middle_or_with_no_pawn_ahead() {
        let pos = Position::new(&Preset::Teams.rules()).unwrap();
        let placed = |army, name: &str| rook_placement(&pos, army, name.parse().unwrap(), 14);
        assert_eq!(placed(Army::Red, "g7"), ROOK_CENTRAL);
        assert_eq!(placed(Army::Yellow, "j10"), ROOK_CENTRAL);
        // Behind its own pawn, or with an enemy pawn in the six squares ahead.
        assert_eq!(placed(Army::Red, "d1"), 0);
        assert_eq!(placed(Army::Blue, "a4"), 0);
        assert_eq!(placed(Army::Red, "d8"), 0);
        // Nothing but pieces ahead before the board's edge, or the pawn seven squares on.
        assert_eq!(placed(Army::Red, "a6"), ROOK_OPEN);
        assert_eq!(placed(Army::Red, "d6"), ROOK_OPEN);
    }

    #[test]
    fn a_knight_reaches_a_checking_square_from_two_jumps_away_only() {
        let sq = |file: u8, rank: u8| Square::new(file, rank).unwrap();
        let knight = sq(6, 6);
        // Two jumps: along a line, beside it, on the diagonal.
        for (file, rank) in [(6, 10), (8, 6), (7, 7), (9, 9), (10, 8), (5, 3)] {
            assert!(knight_reaches(knight, sq(file, rank)), "{file} {rank}");
        }
        // One jump (the knight checks already), one step, or too far.
        for (file, rank) in [(7, 8), (7, 6), (6, 7), (10, 10), (6, 11), (11, 6)] {
            assert!(!knight_reaches(knight, sq(file, rank)), "{file} {rank}");
        }
        // Twelve files over and a rank up is the same cell offset as four back and two up.
        assert!(knight_reaches(sq(4, 5), sq(0, 7)));
        assert!(!knight_reaches(sq(0, 5), sq(12, 6)));
    }

    #[test]
    fn developed_pieces_count_and_count_more_when_both_partners_have_them() {
        let rules = Preset::Teams.rules();
        let mut game = crate::Game::new(rules).unwrap();
        let view = |root, activation| Perspective {
            root,
            format: rules.format,
            promotion_rank: rules.promotion_rank,
            features: Features {
                activation,
                ..Features::default()
            },
        };
        let developed = |game: &crate::Game, root| {
            let pos = game.position();
            view(root, true).evaluate(pos, &[0; 4]) - view(root, false).evaluate(pos, &[0; 4])
        };
        assert_eq!(developed(&game, Army::Red), 0);
        // A knight out for Red, a pawn for Blue, a knight out for Yellow.
        for knight in [true, false, true] {
            let pos = game.position();
            let mv = game
                .legal_moves()
                .iter()
                .copied()
                .find(|m| (role_bits(at(&pos.cells, m.from())) == Role::Knight as u8) == knight)
                .unwrap();
            game.play(game.to_move().unwrap(), mv).unwrap();
        }
        let terms = army_terms(
            game.position(),
            rules.promotion_rank,
            view(Army::Red, true).features,
        );
        assert_eq!(terms.active, [1, 0, 1, 0]);
        assert_eq!(
            developed(&game, Army::Red),
            2 * ACTIVE_PIECE + ACTIVE_TOGETHER
        );
        assert_eq!(
            developed(&game, Army::Blue),
            -(2 * ACTIVE_PIECE + ACTIVE_TOGETHER)
        );
    }

    /// The zone's danger as first written: the attackers of each square looked up afresh.
    fn danger_by_lookup(pos: &Position, army: Army, king: Square) -> (i32, u8) {
        let mut danger = 0;
        let mut armies = 0u8;
        for d in ZONE_OFFSETS {
            let sq = step(king, d);
            if at(&pos.cells, sq) & WALL != 0 || (d != 0 && pos.kind.own_rank(army, sq) == 0) {
                continue;
            }
            let (mut weight, mut count) = (0, 0);
            for from in pos.attackers(sq, army) {
                let code = at(&pos.cells, from);
                let w = KING_ATTACKER[role_bits(code) as usize];
                if w > 0 {
                    weight += w;
                    count += 1;
                    armies |= 1 << ((code >> 3) & 3);
                }
            }
            danger += weight * ATTACK_WEIGHT[count.min(ATTACK_WEIGHT.len() - 1)] / 100;
        }
        (danger, armies)
    }

    #[test]
    fn the_zones_gathered_on_the_walk_agree_with_looking_up_every_attacker() {
        use rand::{Rng, SeedableRng};
        let mut compared = 0;
        for preset in [Preset::Teams, Preset::Ffa, Preset::Duo] {
            for seed in 0..6 {
                let mut game = crate::Game::with_seed(preset.rules(), seed).unwrap();
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                while !game.is_over() && game.ply_count() < 120 {
                    let pos = game.position();
                    let kings = Army::ALL.map(|a| {
                        (pos.status[a] == ArmyStatus::Playing)
                            .then(|| pos.king(a))
                            .flatten()
                    });
                    let mut zones = Zones::new(pos, &kings);
                    for army in Army::ALL {
                        if pos.status[army] != ArmyStatus::Playing {
                            continue;
                        }
                        let enemies = Army::ALL
                            .iter()
                            .filter(|&&e| pos.is_enemy(army, e))
                            .fold(0u8, |m, e| m | 1 << e.index());
                        for sq in pos.occupied[army.index()] {
                            let role = role_bits(at(&pos.cells, sq));
                            if role == Role::Pawn as u8 {
                                for d in pawn_captures(army) {
                                    zones.attack(step(sq, d), army.index(), role, enemies);
                                }
                            } else if role != Role::King as u8 {
                                let cls = &pos.classes[army.index()];
                                mobility(pos, cls, sq, role, |to, _| {
                                    zones.attack(to, army.index(), role, enemies)
                                });
                            }
                        }
                    }
                    for army in Army::ALL {
                        let Some(king) = kings[army.index()] else {
                            continue;
                        };
                        let (expected, armies) = danger_by_lookup(pos, army, king);
                        let gathered = zones.danger_of_squares(army);
                        assert_eq!(gathered, expected, "{preset} seed {seed} {army}");
                        assert_eq!(zones.attackers[army.index()], armies);
                        compared += 1;
                    }
                    let moves = game.legal_moves();
                    if game.walking_king_to_move() {
                        game.walk_king().unwrap();
                        continue;
                    }
                    let mv = moves[rng.random_range(0..moves.len())];
                    game.play(game.to_move().unwrap(), mv).unwrap();
                }
            }
        }
        assert!(compared > 1_000, "{compared}");
    }
}
