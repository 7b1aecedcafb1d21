//! Zobrist keys for the incremental position hash, generated at compile time.

use crate::army::Army;
use crate::piece::PROMOTED;
use crate::square::Square;

/// Every random key the hash uses.
pub(crate) struct Keys {
    /// Indexed by the low five bits of a cell code (role and army) and the grid cell.
    piece: [[u64; 256]; 32],
    /// Added for a promoted piece on a cell.
    promoted: [u64; 256],
    turn: [u64; 4],
    castling: [u64; 8],
    /// Keyed by the square a double-stepped pawn skipped.
    en_passant: [u64; 256],
    /// Indexed by army and `ArmyStatus as usize`.
    status: [[u64; 4]; 4],
}

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn generate() -> Keys {
    let mut keys = Keys {
        piece: [[0; 256]; 32],
        promoted: [0; 256],
        turn: [0; 4],
        castling: [0; 8],
        en_passant: [0; 256],
        status: [[0; 4]; 4],
    };
    let mut state = 0x4b69_6e67_7334_u64; // "Kings4"
    let mut code = 0;
    while code < 32 {
        let mut cell = 0;
        while cell < 256 {
            let (s, k) = splitmix64(state);
            state = s;
            keys.piece[code][cell] = k;
            cell += 1;
        }
        code += 1;
    }
    let mut cell = 0;
    while cell < 256 {
        let (s, k) = splitmix64(state);
        let (s, e) = splitmix64(s);
        state = s;
        keys.promoted[cell] = k;
        keys.en_passant[cell] = e;
        cell += 1;
    }
    let mut i = 0;
    while i < 8 {
        let (s, k) = splitmix64(state);
        state = s;
        keys.castling[i] = k;
        i += 1;
    }
    let mut a = 0;
    while a < 4 {
        let (s, k) = splitmix64(state);
        state = s;
        keys.turn[a] = k;
        let mut st = 0;
        while st < 4 {
            let (s, k) = splitmix64(state);
            state = s;
            keys.status[a][st] = k;
            st += 1;
        }
        a += 1;
    }
    keys
}

static KEYS: Keys = generate();

/// The key of the piece with cell code `code` standing on `sq`.
#[inline]
pub(crate) fn piece(code: u8, sq: Square) -> u64 {
    let cell = sq.cell() as usize;
    let key = KEYS.piece[(code & 31) as usize][cell];
    if code & PROMOTED != 0 {
        key ^ KEYS.promoted[cell]
    } else {
        key
    }
}

/// The key of `army` being to move.
#[inline]
pub(crate) fn turn(army: Army) -> u64 {
    KEYS.turn[army.index()]
}

/// The key of castling right number `bit` (army × 2 + side).
#[inline]
pub(crate) fn castling(bit: usize) -> u64 {
    KEYS.castling[bit]
}

/// The key of all castling rights in `rights`.
#[inline]
pub(crate) fn castling_set(rights: u8) -> u64 {
    (0..8)
        .filter(|b| rights >> b & 1 != 0)
        .fold(0, |h, b| h ^ castling(b))
}

/// The key of an en passant right over the skipped square `sq`.
#[inline]
pub(crate) fn en_passant(sq: Square) -> u64 {
    KEYS.en_passant[sq.cell() as usize]
}

/// The key of `army` having status number `status` (0, playing, has key 0).
#[inline]
pub(crate) fn status(army: Army, status: usize) -> u64 {
    if status == 0 {
        0
    } else {
        KEYS.status[army.index()][status]
    }
}
