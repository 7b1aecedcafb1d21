//! FEN4: one position on the cross board, in the text format other four-player chess tools use.
//!
//! ```text
//! TURN - OUT - CASTLE_KINGSIDE - CASTLE_QUEENSIDE - POINTS - HALFMOVES [- EXTRA] - PLACEMENT
//! ```
//!
//! Lists of four are in seat order (Red, Blue, Yellow, Green). `EXTRA` is a Python-literal
//! dictionary; only its `enPassant` entry is read, other keys are ignored. The placement lists
//! rank 14 first; a cell is a piece (`rK`), a run of empty squares (`1`–`14`) or `x` for one
//! removed corner square. [`write_fen4`] writes the canonical form (corners folded into empty
//! runs, `EXTRA` only when an en passant right is open); [`parse_fen4`] also reads `x` corners,
//! spaces and line breaks between cells and fields, and double-quoted strings in `EXTRA`.
//!
//! Castling rights that can no longer apply (the king or that rook is off its home square) are
//! dropped on reading, as python-chess and shakmaty's lenient mode do for FEN: real engines' test
//! positions carry such flags.
//!
//! FEN4 has no letter for a promoted piece: the writer writes a promoted piece under its role,
//! and the reader reads `D` (the 1-point queen of free-for-all, as some tools write it) as a
//! promoted queen. An army that is out is written with flag 1 whether or not its king walks
//! on; the reader makes every flagged army [`ArmyStatus::Out`].

use std::fmt::{self, Write as _};
use std::str::FromStr;

use thiserror::Error;

use crate::army::{Army, ByArmy};
use crate::board::ArmyStatus;
use crate::geometry::BoardKind;
use crate::piece::{Piece, Role};
use crate::setup::{EnPassant, Setup};
use crate::square::Square;

/// The standard start position (Red to move), exactly as [`write_fen4`] writes it.
pub const START_FEN4: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-\
    3,yR,yN,yB,yK,yQ,yB,yN,yR,3/3,yP,yP,yP,yP,yP,yP,yP,yP,3/14/\
    bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/\
    bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/14/\
    3,rP,rP,rP,rP,rP,rP,rP,rP,3/3,rR,rN,rB,rQ,rK,rB,rN,rR,3";

/// The size of the cross board's grid.
const SIZE: u8 = 14;

/// Why a text is not a FEN4. Each variant names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseFen4Error {
    /// Not seven or eight `-`-separated fields (eight when `EXTRA` is present).
    #[error(
        "a FEN4 has 7 or 8 fields separated by '-' (turn, out, castling kingside, castling queenside, \
         points, halfmoves, optional extra, placement); found {0}"
    )]
    FieldCount(usize),
    /// The turn field is not `R`, `B`, `Y` or `G`.
    #[error("invalid turn field {0:?}: expected R, B, Y or G")]
    Turn(String),
    /// The out field is not four `0`/`1` flags.
    #[error("invalid out field {0:?}: expected four 0/1 flags like 0,0,1,0")]
    Out(String),
    /// The castle kingside field is not four `0`/`1` flags.
    #[error("invalid castle kingside field {0:?}: expected four 0/1 flags like 1,1,0,1")]
    CastleKingside(String),
    /// The castle queenside field is not four `0`/`1` flags.
    #[error("invalid castle queenside field {0:?}: expected four 0/1 flags like 1,1,0,1")]
    CastleQueenside(String),
    /// The points field is not four integers.
    #[error("invalid points field {0:?}: expected four integers like 0,3,0,20")]
    Points(String),
    /// The halfmoves field is not a number of plies.
    #[error("invalid halfmoves field {0:?}: expected a number of plies (0-65535)")]
    Halfmoves(String),
    /// The extra field is not a dictionary, or its `enPassant` entry cannot be read.
    #[error("invalid extra field {text:?}: {reason}")]
    Extra {
        /// The field as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The placement does not have fourteen `/`-separated rows.
    #[error("invalid placement: expected 14 rows separated by '/', found {0}")]
    PlacementRows(usize),
    /// One placement row is wrong.
    #[error("invalid placement row for rank {rank}: {problem}")]
    Placement {
        /// The rank the row describes (1–14; the first row is rank 14).
        rank: u8,
        /// What is wrong with it.
        problem: RowProblem,
    },
}

/// What is wrong with one row of a FEN4 placement.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RowProblem {
    /// An `x` (removed corner) stands for a real square.
    #[error("'x' marks {0} as a removed corner, but it is a real square")]
    CornerMarkOnSquare(Square),
    /// The cells cover more or fewer than fourteen squares.
    #[error("the cells cover {0} squares instead of 14")]
    Width(usize),
    /// A piece stands on a removed corner square.
    #[error("{piece} stands on {square}, a removed corner square")]
    PieceOnCorner {
        /// The corner square.
        square: Square,
        /// The piece.
        piece: Piece,
    },
    /// A cell that is neither a piece, an empty run nor `x`.
    #[error("cannot read cell {0:?}: expected a piece like rK, a run of 1-14 empty squares, or x")]
    BadCell(String),
}

/// Reads a FEN4 into an unvalidated [`Setup`] on the cross board (pieces in grid order, rank 1
/// first). [`crate::Position::from_setup`] then checks it against a rule set.
///
/// ```
/// use fourkings_engine::Army;
/// use fourkings_engine::notation::{START_FEN4, parse_fen4};
///
/// let setup = parse_fen4(START_FEN4)?;
/// assert_eq!(setup.turn, Army::Red);
/// assert_eq!(setup.pieces.len(), 64);
/// # Ok::<(), fourkings_engine::notation::ParseFen4Error>(())
/// ```
pub fn parse_fen4(text: &str) -> Result<Setup, ParseFen4Error> {
    let fields = split_fields(text.trim());
    let (extra, placement) = match fields.as_slice() {
        [_, _, _, _, _, _, placement] if !placement.starts_with('{') => (None, *placement),
        [_, _, _, _, _, _, extra, placement] if extra.starts_with('{') => {
            (Some(*extra), *placement)
        }
        _ => return Err(ParseFen4Error::FieldCount(fields.len())),
    };
    let turn = match fields[0] {
        t if t.chars().count() == 1 => t.chars().next().and_then(Army::from_letter),
        _ => None,
    }
    .ok_or_else(|| ParseFen4Error::Turn(fields[0].to_owned()))?;
    let out = parse_flags(fields[1]).ok_or_else(|| ParseFen4Error::Out(fields[1].to_owned()))?;
    let kingside = parse_flags(fields[2])
        .ok_or_else(|| ParseFen4Error::CastleKingside(fields[2].to_owned()))?;
    let queenside = parse_flags(fields[3])
        .ok_or_else(|| ParseFen4Error::CastleQueenside(fields[3].to_owned()))?;
    let points = parse_four(fields[4], |s| s.parse::<i32>().ok())
        .ok_or_else(|| ParseFen4Error::Points(fields[4].to_owned()))?;
    let halfmove_clock = fields[5]
        .parse::<u16>()
        .map_err(|_| ParseFen4Error::Halfmoves(fields[5].to_owned()))?;
    let extra = match extra {
        Some(extra) => parse_extra(extra).map_err(|reason| ParseFen4Error::Extra {
            text: extra.to_owned(),
            reason,
        })?,
        None => Extra::default(),
    };
    let en_passant = extra.en_passant;
    let mut pieces = parse_placement(placement)?;
    for (sq, piece) in &mut pieces {
        piece.promoted |= extra.promoted.contains(sq);
    }
    pieces.sort_by_key(|&(sq, _)| sq);
    let mut setup = Setup {
        board: BoardKind::Cross,
        pieces,
        turn,
        castling: ByArmy::from_fn(|a| [kingside[a], queenside[a]]),
        en_passant,
        status: ByArmy::from_fn(|a| match (out[a], extra.walking_kings[a]) {
            (false, _) => ArmyStatus::Playing,
            (true, true) => ArmyStatus::KingWalking,
            (true, false) => ArmyStatus::Out,
        }),
        points,
        halfmove_clock,
    };
    setup.drop_lost_castling_rights();
    Ok(setup)
}

/// Writes a setup as a FEN4, in the canonical form: corners folded into empty runs, `14` for an
/// empty row, `EXTRA` only when some en passant right is open, out flag 1 for every army that
/// does not play (out, walking king, or absent). Meant for cross-board setups: the placement is
/// always the 14×14 grid.
///
/// ```
/// use fourkings_engine::notation::{START_FEN4, write_fen4};
/// use fourkings_engine::{Army, BoardKind, Setup};
///
/// assert_eq!(write_fen4(&Setup::start(BoardKind::Cross, Army::Red)), START_FEN4);
/// ```
pub fn write_fen4(setup: &Setup) -> String {
    let mut out = String::with_capacity(START_FEN4.len() + 16);
    let flags = |f: ByArmy<bool>| f.0.map(|b| if b { "1" } else { "0" }).join(",");
    out.push(setup.turn.upper_letter());
    out.push('-');
    out.push_str(&flags(setup.status.map(|s| s != ArmyStatus::Playing)));
    out.push('-');
    out.push_str(&flags(setup.castling.map(|c| c[0])));
    out.push('-');
    out.push_str(&flags(setup.castling.map(|c| c[1])));
    out.push('-');
    out.push_str(&setup.points.0.map(|p| p.to_string()).join(","));
    let _ = write!(out, "-{}-", setup.halfmove_clock);
    let mut extra = Vec::new();
    if setup.en_passant.0.iter().any(Option::is_some) {
        let entries = setup.en_passant.0.map(|ep| match ep {
            Some(ep) => format!("'{}:{}'", ep.skipped, ep.landed),
            None => "''".to_owned(),
        });
        extra.push(format!("'enPassant':({})", entries.join(",")));
    }
    let mut promoted: Vec<Square> = setup
        .pieces
        .iter()
        .filter(|(_, p)| p.promoted)
        .map(|(sq, _)| *sq)
        .collect();
    if !promoted.is_empty() {
        promoted.sort();
        let squares: Vec<String> = promoted.iter().map(|sq| format!("'{sq}'")).collect();
        // A one-element tuple needs its trailing comma in Python.
        let comma = if squares.len() == 1 { "," } else { "" };
        extra.push(format!("'promoted':({}{comma})", squares.join(",")));
    }
    if setup.status.0.contains(&ArmyStatus::KingWalking) {
        let flags = setup.status.0.map(|s| {
            if s == ArmyStatus::KingWalking {
                "1"
            } else {
                "0"
            }
        });
        extra.push(format!("'walkingKings':({})", flags.join(",")));
    }
    if !extra.is_empty() {
        let _ = write!(out, "{{{}}}-", extra.join(","));
    }
    write_placement(setup, &mut out);
    out
}

/// A FEN4 as a value: [`FromStr`] reads it with [`parse_fen4`], [`fmt::Display`] writes it with
/// [`write_fen4`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fen4(pub Setup);

impl Fen4 {
    /// The setup it describes.
    pub fn into_setup(self) -> Setup {
        self.0
    }
}

impl FromStr for Fen4 {
    type Err = ParseFen4Error;

    fn from_str(s: &str) -> Result<Fen4, ParseFen4Error> {
        parse_fen4(s).map(Fen4)
    }
}

impl fmt::Display for Fen4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_fen4(&self.0))
    }
}

impl From<Setup> for Fen4 {
    fn from(setup: Setup) -> Fen4 {
        Fen4(setup)
    }
}

/// Splits at the `-` separators, trimming each field. A `-` inside brackets or quotes (the
/// `EXTRA` dictionary) does not separate, nor does a minus sign (a `-` right after `,` or at the
/// start of a field and followed by a digit, as in negative points).
fn split_fields(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut fields = Vec::with_capacity(8);
    let (mut start, mut depth, mut quote) = (0, 0usize, None);
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'\'' | b'"' if depth > 0 => quote = Some(b),
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            b'-' if depth == 0 => {
                let field_start = text[start..i].trim().is_empty() || bytes[i - 1] == b',';
                let sign = field_start && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !sign {
                    fields.push(text[start..i].trim());
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    fields.push(text[start..].trim());
    fields
}

/// Reads four comma-separated values in seat order.
fn parse_four<T: Copy + Default>(text: &str, f: impl Fn(&str) -> Option<T>) -> Option<ByArmy<T>> {
    let mut values = [T::default(); 4];
    let mut parts = text.split(',');
    for value in &mut values {
        *value = f(parts.next()?.trim())?;
    }
    parts.next().is_none().then_some(ByArmy(values))
}

/// Reads four `0`/`1` flags.
fn parse_flags(text: &str) -> Option<ByArmy<bool>> {
    parse_four(text, |s| match s {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    })
}

/// Reads the placement rows into pieces.
fn parse_placement(text: &str) -> Result<Vec<(Square, Piece)>, ParseFen4Error> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != SIZE as usize {
        return Err(ParseFen4Error::PlacementRows(rows.len()));
    }
    let mut pieces = Vec::with_capacity(64);
    for (i, row) in rows.iter().enumerate() {
        let rank = SIZE - 1 - i as u8;
        parse_row(row, rank, &mut pieces).map_err(|problem| ParseFen4Error::Placement {
            rank: rank + 1,
            problem,
        })?;
    }
    Ok(pieces)
}

/// Reads one placement row (0-based `rank`), adding its pieces.
fn parse_row(row: &str, rank: u8, pieces: &mut Vec<(Square, Piece)>) -> Result<(), RowProblem> {
    let mut file = 0usize;
    for cell in row.split(',').map(str::trim) {
        let square = u8::try_from(file).ok().and_then(|f| Square::new(f, rank));
        if cell.eq_ignore_ascii_case("x") {
            if let Some(sq) = square.filter(|&sq| BoardKind::Cross.contains(sq)) {
                return Err(RowProblem::CornerMarkOnSquare(sq));
            }
            file += 1;
        } else if cell.starts_with(|c: char| c.is_ascii_digit()) {
            let run = cell
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=SIZE as usize).contains(n));
            file += run.ok_or_else(|| RowProblem::BadCell(cell.to_owned()))?;
        } else {
            let piece = parse_piece(cell).ok_or_else(|| RowProblem::BadCell(cell.to_owned()))?;
            if let Some(sq) = square {
                if !BoardKind::Cross.contains(sq) {
                    return Err(RowProblem::PieceOnCorner { square: sq, piece });
                }
                pieces.push((sq, piece));
            }
            file += 1;
        }
    }
    if file == SIZE as usize {
        Ok(())
    } else {
        Err(RowProblem::Width(file))
    }
}

/// Reads a piece cell: army letter and role letter (`rK`); `D` is a promoted queen.
fn parse_piece(cell: &str) -> Option<Piece> {
    let mut chars = cell.chars();
    let (army, role, rest) = (chars.next()?, chars.next()?, chars.next());
    if rest.is_some() {
        return None;
    }
    let army = Army::from_letter(army)?;
    match role {
        'D' | 'd' => Some(Piece {
            army,
            role: Role::Queen,
            promoted: true,
        }),
        _ => Role::from_char(role).map(|role| Piece::new(army, role)),
    }
}

/// Writes the fourteen placement rows, rank 14 first.
fn write_placement(setup: &Setup, out: &mut String) {
    let mut grid = [[None::<Piece>; SIZE as usize]; SIZE as usize];
    for &(sq, piece) in &setup.pieces {
        grid[sq.rank() as usize][sq.file() as usize] = Some(piece);
    }
    for (i, row) in grid.iter().rev().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let mut cells: Vec<String> = Vec::with_capacity(SIZE as usize);
        let mut run = 0;
        for cell in row {
            match cell {
                Some(piece) => {
                    if run > 0 {
                        cells.push(run.to_string());
                        run = 0;
                    }
                    cells.push(piece.to_string());
                }
                None => run += 1,
            }
        }
        if run > 0 {
            cells.push(run.to_string());
        }
        out.push_str(&cells.join(","));
    }
}

/// A value of the Python-literal dictionary in `EXTRA`.
#[derive(Debug)]
enum Literal {
    /// A quoted string.
    Str(String),
    /// A tuple or list.
    Seq(Vec<Literal>),
    /// A dictionary.
    Dict(Vec<(Literal, Literal)>),
    /// Anything else: a number, `True`, `None`…, kept as text.
    Atom(String),
}

/// What `EXTRA` carries: the en passant rights, and two keys of Four Kings's own that other
/// readers skip: the squares of promoted pieces (`'promoted':('d8',)`, so that a promoted queen
/// keeps its free-for-all value of 1) and the armies whose king walks (`'walkingKings':(0,1,0,0)`).
#[derive(Debug, Default)]
struct Extra {
    en_passant: ByArmy<Option<EnPassant>>,
    promoted: Vec<Square>,
    walking_kings: ByArmy<bool>,
}

/// Reads the `EXTRA` dictionary.
fn parse_extra(text: &str) -> Result<Extra, String> {
    let mut reader = LiteralReader { text, pos: 0 };
    let value = reader.value()?;
    reader.skip_space();
    if reader.pos != text.len() {
        return Err(format!(
            "unexpected text after the dictionary at byte {}",
            reader.pos
        ));
    }
    let Literal::Dict(entries) = value else {
        return Err("expected a {...} dictionary".to_owned());
    };
    let mut extra = Extra::default();
    for (key, value) in entries {
        let Literal::Str(key) = key else { continue };
        match key.as_str() {
            "promoted" => {
                let Literal::Seq(items) = value else {
                    return Err("promoted must be a tuple of squares".to_owned());
                };
                for item in items {
                    let sq = match item {
                        Literal::Str(s) => s.trim().parse::<Square>().ok(),
                        _ => None,
                    };
                    extra
                        .promoted
                        .push(sq.ok_or("promoted must be a tuple of squares like 'd8'")?);
                }
                continue;
            }
            "walkingKings" => {
                let flags = match value {
                    Literal::Seq(items) if items.len() == 4 => items
                        .iter()
                        .map(|i| matches!(i, Literal::Atom(a) if a == "1"))
                        .collect::<Vec<_>>(),
                    _ => return Err("walkingKings must be a tuple of four 0/1 flags".to_owned()),
                };
                extra.walking_kings = ByArmy::from_fn(|a| flags[a.index()]);
                continue;
            }
            "enPassant" => {}
            _ => continue,
        }
        let Literal::Seq(items) = value else {
            return Err("enPassant must be a tuple of four strings".to_owned());
        };
        if items.len() != 4 {
            return Err(format!(
                "enPassant has {} entries instead of 4",
                items.len()
            ));
        }
        for (army, item) in Army::ALL.into_iter().zip(items) {
            let Literal::Str(s) = item else {
                return Err("enPassant must be a tuple of four strings".to_owned());
            };
            extra.en_passant[army] = parse_en_passant(&s).ok_or_else(|| {
                format!("enPassant entry {s:?} is not '' or two squares like 'd3:d4'")
            })?;
        }
    }
    Ok(extra)
}

/// Reads one `enPassant` entry: `''` or `'skipped:landed'`.
fn parse_en_passant(s: &str) -> Option<Option<EnPassant>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(None);
    }
    let (skipped, landed) = s.split_once(':')?;
    let skipped = skipped.trim().parse().ok()?;
    let landed = landed.trim().parse().ok()?;
    Some(Some(EnPassant { skipped, landed }))
}

/// A small reader of Python literals: strings, tuples, lists, dictionaries, atoms.
struct LiteralReader<'a> {
    text: &'a str,
    pos: usize,
}

impl LiteralReader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    fn expect(&mut self, want: char) -> Result<(), String> {
        self.skip_space();
        match self.peek() {
            Some(c) if c == want => {
                self.pos += c.len_utf8();
                Ok(())
            }
            Some(c) => Err(format!(
                "expected {want:?} but found {c:?} at byte {}",
                self.pos
            )),
            None => Err(format!("expected {want:?} but the text ended")),
        }
    }

    fn value(&mut self) -> Result<Literal, String> {
        self.skip_space();
        match self.peek() {
            Some(q @ ('\'' | '"')) => self.string(q),
            Some('(') => self.items(')').map(Literal::Seq),
            Some('[') => self.items(']').map(Literal::Seq),
            Some('{') => self.dict(),
            Some(_) => {
                let len = self.text[self.pos..]
                    .find(|c: char| c.is_whitespace() || ",:)]}".contains(c))
                    .unwrap_or(self.text.len() - self.pos);
                if len == 0 {
                    return Err(format!("expected a value at byte {}", self.pos));
                }
                let atom = self.text[self.pos..self.pos + len].to_owned();
                self.pos += len;
                Ok(Literal::Atom(atom))
            }
            None => Err("expected a value but the text ended".to_owned()),
        }
    }

    fn string(&mut self, quote: char) -> Result<Literal, String> {
        self.pos += 1;
        let mut s = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                c if c == quote => {
                    self.pos += i + 1;
                    return Ok(Literal::Str(s));
                }
                '\\' => s.extend(chars.next().map(|(_, c)| c)),
                c => s.push(c),
            }
        }
        Err("a string is not closed".to_owned())
    }

    /// Comma-separated values up to `close` (the opening bracket is next); a trailing comma is
    /// allowed.
    fn items(&mut self, close: char) -> Result<Vec<Literal>, String> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(items);
            }
            items.push(self.value()?);
            self.skip_space();
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                self.expect(close)?;
                return Ok(items);
            }
        }
    }

    fn dict(&mut self) -> Result<Literal, String> {
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some('}') {
                self.pos += 1;
                return Ok(Literal::Dict(entries));
            }
            let key = self.value()?;
            self.expect(':')?;
            let value = self.value()?;
            entries.push((key, value));
            self.skip_space();
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                self.expect('}')?;
                return Ok(Literal::Dict(entries));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::rules::Preset;

    const START_X: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-\
        x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/\
        bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/\
        bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/\
        x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x";

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    /// The start position with one field replaced (0-based field index, no EXTRA).
    fn with_field(i: usize, value: &str) -> String {
        let mut fields: Vec<&str> = START_FEN4.split('-').collect();
        fields[i] = value;
        fields.join("-")
    }

    #[test]
    fn start_position_round_trips_byte_for_byte() {
        let setup = parse_fen4(START_FEN4).unwrap();
        assert_eq!(write_fen4(&setup), START_FEN4);
        let pos = Position::new(&Preset::Teams.rules()).unwrap();
        assert_eq!(setup, pos.to_setup());
        assert_eq!(
            write_fen4(&Setup::start(BoardKind::Cross, Army::Red)),
            START_FEN4
        );
    }

    #[test]
    fn corner_marks_read_as_the_same_setup() {
        assert_eq!(
            parse_fen4(START_X).unwrap(),
            parse_fen4(START_FEN4).unwrap()
        );
    }

    #[test]
    fn fen4_newtype_parses_and_displays() {
        let fen: Fen4 = START_FEN4.parse().unwrap();
        assert_eq!(fen.to_string(), START_FEN4);
        assert_eq!(fen.into_setup().turn, Army::Red);
    }

    #[test]
    fn mirrored_old_start_is_just_a_placement() {
        let old = START_FEN4.replace(
            "bQ,bP,10,gP,gK/bK,bP,10,gP,gQ",
            "bK,bP,10,gP,gQ/bQ,bP,10,gP,gK",
        );
        let mut setup = parse_fen4(&old).unwrap();
        assert!(
            setup
                .pieces
                .contains(&(sq("a8"), Piece::new(Army::Blue, Role::King)))
        );
        assert!(
            setup
                .pieces
                .contains(&(sq("a7"), Piece::new(Army::Blue, Role::Queen)))
        );
        assert!(
            setup
                .pieces
                .contains(&(sq("n7"), Piece::new(Army::Green, Role::King)))
        );
        // The engine castles only from the standard king squares: Blue's and Green's rights
        // cannot apply, and the reader drops them.
        assert_eq!(setup.castling[Army::Blue], [false; 2]);
        assert_eq!(setup.castling[Army::Green], [false; 2]);
        assert_eq!(
            write_fen4(&setup),
            old.replacen("-1,1,1,1-1,1,1,1-", "-1,0,1,0-1,0,1,0-", 1)
        );
        Position::from_setup(&setup, &Preset::Teams.rules()).unwrap();
        assert!(setup.drop_lost_castling_rights().is_empty());
    }

    /// "A FEN4 whose castling rights can no longer apply (the king or that rook is off its home
    /// square) is read with those rights dropped", as in the test positions of
    /// obryanlouis/4pchess (board_test.cc: a king off its square with every flag 1). Here Red's
    /// king stands on h3 and its king-side rook is gone.
    #[test]
    fn castling_rights_that_cannot_apply_are_dropped() {
        let text = START_FEN4
            .replace("3,rR,rN,rB,rQ,rK,rB,rN,rR,3", "3,rR,rN,rB,rQ,1,rB,rN,1,3")
            .replacen("/14/3,rP", "/7,rK,6/3,rP", 1);
        let setup = parse_fen4(&text).unwrap();
        assert_eq!(
            setup.castling[Army::Red],
            [false, false],
            "the king left h1"
        );
        assert_eq!(setup.castling[Army::Blue], [true, true]);
        let pos = Position::from_setup(&setup, &Preset::Teams.rules()).unwrap();
        assert!(!pos.can_castle(Army::Red, crate::CastleSide::King));
        // Only the right whose rook is gone goes when the king stays home.
        let text = START_FEN4.replace("3,rR,rN,rB,rQ,rK,rB,rN,rR,3", "3,rR,rN,rB,rQ,rK,rB,rN,1,3");
        let setup = parse_fen4(&text).unwrap();
        assert_eq!(setup.castling[Army::Red], [false, true]);
    }

    #[test]
    fn header_fields_are_read() {
        let placement = START_FEN4.rsplit_once("-0-").unwrap().1;
        let text = format!("G-0,1,0,0-1,0,0,1-0,0,1,1-3,-2,20,0-17-{placement}");
        let setup = parse_fen4(&text).unwrap();
        assert_eq!(setup.turn, Army::Green);
        assert_eq!(
            setup.status.0,
            [
                ArmyStatus::Playing,
                ArmyStatus::Out,
                ArmyStatus::Playing,
                ArmyStatus::Playing
            ]
        );
        assert_eq!(
            setup.castling.0,
            [[true, false], [false, false], [false, true], [true, true]]
        );
        assert_eq!(setup.points.0, [3, -2, 20, 0]);
        assert_eq!(setup.halfmove_clock, 17);
        assert_eq!(setup.pieces.len(), 64);
        assert_eq!(write_fen4(&setup), text);
    }

    /// What obryanlouis/4pchess's FEN4 reader accepts (utils.cc, `ParseBoardFromFEN`): the text
    /// split at every `-` gives 7 or 8 fields, and the 8th, if any, holds one tuple of four
    /// entries, each `''` or `'skipped:landed'`; placement cells are pieces of `PNBRQK`, runs and
    /// `x`.
    fn readable_by_4pchess(text: &str) -> bool {
        let fields: Vec<&str> = text.split('-').collect();
        let extra_ok = match fields.len() {
            7 => true,
            8 => fields[6]
                .strip_prefix("{'enPassant':(")
                .and_then(|rest| rest.strip_suffix(")}"))
                .is_some_and(|tuple| {
                    let entries: Vec<&str> = tuple.split(',').collect();
                    entries.len() == 4
                        && entries.iter().all(|e| {
                            *e == "''"
                                || (e.starts_with('\'') && e.ends_with('\'') && e.contains(':'))
                        })
                }),
            _ => false,
        };
        let cells_ok = fields.last().unwrap().split(['/', ',']).all(|cell| {
            cell == "x"
                || cell.parse::<u8>().is_ok()
                || (cell.len() == 2 && cell[1..].chars().all(|c| "PNBRQK".contains(c)))
        });
        extra_ok && cells_ok
    }

    /// "FEN4 that Four Kings writes is read by the public 4PC tools": every Teams position of
    /// random games (with promotions and en passant rights) is written as 4pchess reads it.
    #[test]
    fn teams_fen4_is_what_4pchess_reads() {
        use crate::game::Game;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut next = move |n: usize| rng.random_range(0..n);
        let (mut with_extra, mut promoted) = (0, 0);
        for _ in 0..20 {
            let mut game = Game::new(Preset::Teams.rules()).unwrap();
            for _ in 0..400 {
                let Some(seat) = game.to_move() else { break };
                let text = write_fen4(&game.position().to_setup());
                assert!(readable_by_4pchess(&text), "{text}");
                with_extra += usize::from(text.contains('{'));
                let moves = game.legal_moves();
                // Pawn moves and captures first, so that promotions and en passant come up.
                let eager: Vec<_> = moves
                    .iter()
                    .filter(|m| {
                        game.position().piece_at(m.to()).is_some()
                            || game
                                .position()
                                .piece_at(m.from())
                                .is_some_and(|p| p.role == Role::Pawn)
                    })
                    .copied()
                    .collect();
                let pool = if eager.is_empty() || next(4) == 0 {
                    &moves[..]
                } else {
                    &eager[..]
                };
                let mv = pool[next(pool.len())];
                promoted += usize::from(mv.promotion().is_some());
                game.play(seat, mv).unwrap();
            }
        }
        assert!(with_extra > 0 && promoted > 0, "{with_extra} {promoted}");
    }

    #[test]
    fn walking_king_is_written_as_out_and_kept_in_extra() {
        let mut setup = Setup::start(BoardKind::Cross, Army::Red);
        setup.status[Army::Blue] = ArmyStatus::KingWalking;
        setup.status[Army::Green] = ArmyStatus::Out;
        let text = write_fen4(&setup);
        assert!(text.starts_with("R-0,1,0,1-"), "{text}");
        assert!(text.contains("'walkingKings':(0,1,0,0)"), "{text}");
        let back = parse_fen4(&text).unwrap();
        assert_eq!(back.status[Army::Blue], ArmyStatus::KingWalking);
        assert_eq!(back.status[Army::Green], ArmyStatus::Out);
    }

    #[test]
    fn en_passant_round_trips_through_extra() {
        let mut pos = Position::new(&Preset::Teams.rules()).unwrap();
        let mv = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == sq("d2") && m.to() == sq("d4"))
            .unwrap();
        pos.play_unchecked(mv);
        let setup = pos.to_setup();
        let text = write_fen4(&setup);
        assert!(
            text.starts_with(
                "B-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-{'enPassant':('d3:d4','','','')}-3,yR,"
            ),
            "{text}"
        );
        let back = parse_fen4(&text).unwrap();
        assert_eq!(back, setup);
        assert_eq!(
            Position::from_setup(&back, &Preset::Teams.rules()).unwrap(),
            pos
        );
    }

    #[test]
    fn extra_is_read_leniently() {
        let placement = START_FEN4.rsplit_once("-0-").unwrap().1;
        let head = "B-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0";
        let want = Some(EnPassant {
            skipped: sq("d3"),
            landed: sq("d4"),
        });
        for extra in [
            "{'enPassant':('d3:d4','','','')}",
            "{ \"enPassant\" : ( \"d3:d4\" , \"\" , '' , '' ) }",
            "{'royal':('h1','a7','g14','n8'),'lives':(3,3,3,3),'enPassant':['d3:d4','','',''],'x':{'a-b':True}}",
            "{'uniquify':94403,'resigned':(true,false,false,false),'enPassant':('d3:d4','','',''),}",
        ] {
            let setup = parse_fen4(&format!("{head}-{extra}-{placement}"))
                .unwrap_or_else(|e| panic!("{extra}: {e}"));
            assert_eq!(setup.en_passant[Army::Red], want, "{extra}");
            assert_eq!(setup.en_passant[Army::Blue], None);
        }
        let setup = parse_fen4(&format!("{head}-{{'lives':(1,2,3,4)}}-{placement}")).unwrap();
        assert_eq!(setup.en_passant, ByArmy::default());
    }

    #[test]
    fn spaces_and_line_breaks_are_tolerated() {
        let spaced = START_FEN4
            .replace('-', " - \n")
            .replace('/', "/\n ")
            .replace(',', ", ");
        assert_eq!(
            parse_fen4(&spaced).unwrap(),
            parse_fen4(START_FEN4).unwrap()
        );
    }

    #[test]
    fn promoted_queen_letter_is_read() {
        let text = START_FEN4.replace("3,rP,rP,rP,rP,rP,rP,rP,rP,3", "3,rD,rP,rP,rP,rP,rP,rP,rP,3");
        let setup = parse_fen4(&text).unwrap();
        assert!(setup.pieces.contains(&(
            sq("d2"),
            Piece {
                army: Army::Red,
                role: Role::Queen,
                promoted: true
            }
        )));
    }

    #[test]
    fn each_field_has_its_error() {
        use ParseFen4Error as E;
        assert_eq!(parse_fen4("R-0,0,0,0"), Err(E::FieldCount(2)));
        assert!(matches!(
            parse_fen4(&format!("{START_FEN4}-14")),
            Err(E::FieldCount(8))
        ));
        assert_eq!(parse_fen4(&with_field(0, "W")), Err(E::Turn("W".into())));
        assert_eq!(
            parse_fen4(&with_field(1, "0,0,2,0")),
            Err(E::Out("0,0,2,0".into()))
        );
        assert_eq!(
            parse_fen4(&with_field(2, "1,1,1")),
            Err(E::CastleKingside("1,1,1".into()))
        );
        assert_eq!(
            parse_fen4(&with_field(3, "1,1,1,1,1")),
            Err(E::CastleQueenside("1,1,1,1,1".into()))
        );
        assert_eq!(
            parse_fen4(&with_field(4, "0,0,a,0")),
            Err(E::Points("0,0,a,0".into()))
        );
        assert_eq!(
            parse_fen4(&with_field(5, "x")),
            Err(E::Halfmoves("x".into()))
        );
        let placement = START_FEN4.rsplit_once("-0-").unwrap().1;
        let bad_extra = format!(
            "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-{{'enPassant':('z3','','','')}}-{placement}"
        );
        assert!(matches!(parse_fen4(&bad_extra), Err(E::Extra { .. })));
        let unclosed =
            format!("R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-{{'enPassant':('d3:d4'-{placement}");
        assert!(parse_fen4(&unclosed).is_err());
        assert_eq!(
            parse_fen4(&START_FEN4.replace("/14/bR", "/bR")),
            Err(E::PlacementRows(13))
        );
    }

    #[test]
    fn placement_errors_name_the_row() {
        use ParseFen4Error::Placement;
        let err = |text: String| parse_fen4(&text).unwrap_err();
        // Rank 12 is the third row; its d-file is a real square.
        assert_eq!(
            err(START_FEN4.replacen("/14/", "/x,x,x,x,10/", 1)),
            Placement {
                rank: 12,
                problem: RowProblem::CornerMarkOnSquare(sq("d12"))
            }
        );
        assert_eq!(
            err(START_FEN4.replacen("/14/", "/13/", 1)),
            Placement {
                rank: 12,
                problem: RowProblem::Width(13)
            }
        );
        assert_eq!(
            err(START_FEN4.replacen("/14/", "/3,8,4/", 1)),
            Placement {
                rank: 12,
                problem: RowProblem::Width(15)
            }
        );
        assert_eq!(
            err(START_FEN4.replacen("3,rR", "rK,2,rR", 1)),
            Placement {
                rank: 1,
                problem: RowProblem::PieceOnCorner {
                    square: sq("a1"),
                    piece: Piece::new(Army::Red, Role::King)
                }
            }
        );
        for bad in ["qK", "rZ", "0", "15", "", "rKK"] {
            assert_eq!(
                err(START_FEN4.replacen("/14/", &format!("/{bad},13/"), 1)),
                Placement {
                    rank: 12,
                    problem: RowProblem::BadCell(bad.into())
                },
                "{bad}"
            );
        }
        assert_eq!(
            err(START_FEN4.replacen("/14/", "/13/", 1)).to_string(),
            "invalid placement row for rank 12: the cells cover 13 squares instead of 14"
        );
        // A lone corner mark followed by a run is fine.
        assert!(parse_fen4(&START_FEN4.replacen("/14/", "/x,13/", 1)).is_ok());
    }
}
