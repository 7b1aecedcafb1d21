//! What PGN and PGN4 share: tag pairs and the tokens of movetext (comments, variations and
//! annotation glyphs skipped).

use thiserror::Error;

/// A problem in the text of a PGN or PGN4 file, before any move is looked at.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PgnSyntaxError {
    /// A line in the tag section that is not `[Name "value"]`.
    #[error("line {line}: malformed tag pair {text:?}")]
    Tag {
        /// The 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A `{` comment or `(` variation that never ends.
    #[error("unterminated {0} in the movetext")]
    Unterminated(&'static str),
}

/// Splits a PGN text into its tag pairs and its movetext. A tag value may run over several
/// lines (chess.com writes a long `StartFen4` so); its lines are kept, joined by line breaks.
pub(crate) fn split_tags(text: &str) -> Result<(Vec<(String, String)>, String), PgnSyntaxError> {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    let mut in_tags = true;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim();
        if in_tags && trimmed.starts_with('[') {
            let mut pair = trimmed.to_owned();
            // A value still open at the end of the line goes on to the line that closes it.
            while !closes_tag(&pair) {
                let Some((_, next)) = lines.next() else { break };
                pair.push('\n');
                pair.push_str(next.trim());
            }
            tags.push(parse_tag(&pair).ok_or_else(|| PgnSyntaxError::Tag {
                line: i + 1,
                text: line.to_owned(),
            })?);
            continue;
        }
        if in_tags && trimmed.is_empty() {
            continue;
        }
        in_tags = false;
        movetext.push_str(line);
        movetext.push('\n');
    }
    Ok((tags, movetext))
}

/// Whether `pair` (a tag pair so far, from its `[`) is complete: its quoted value is closed
/// and followed by `]`.
fn closes_tag(pair: &str) -> bool {
    let mut in_value = false;
    let mut escaped = false;
    let mut closed = false;
    for c in pair.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_value => escaped = true,
            '"' => {
                in_value = !in_value;
                closed = !in_value;
            }
            _ => {}
        }
    }
    !in_value && (!closed || pair.trim_end().ends_with(']'))
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::with_capacity(rest.len());
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(chars.next()?);
        } else {
            value.push(c);
        }
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name.to_owned(), value))
}

/// Writes one tag pair line, escaping `"` and `\`.
pub(crate) fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("\"]\n");
}

/// The value of tag `name`.
pub(crate) fn tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Sets tag `name` to `value`, in place if it exists, else appended.
pub(crate) fn set_tag(tags: &mut Vec<(String, String)>, name: &str, value: String) {
    match tags.iter_mut().find(|(n, _)| n == name) {
        Some((_, v)) => *v = value,
        None => tags.push((name.to_owned(), value)),
    }
}

/// One token of movetext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// A move number (`12.` or `12...`), with the number.
    Number(u32),
    /// PGN4's quarter-move separator `..`.
    Separator,
    /// A game result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    Result(&'a str),
    /// A `{…}` comment's text, trimmed.
    Comment(&'a str),
    /// Anything else: a move or an elimination token.
    Word(&'a str),
}

/// The tokens of `movetext`, without `;` comments, variations (`(…)`, nested) and numeric
/// annotation glyphs (`$n`). `{…}` comments outside variations are kept as [`Token::Comment`].
pub(crate) fn tokens(movetext: &str) -> Result<Vec<Token<'_>>, PgnSyntaxError> {
    let mut out = Vec::new();
    let bytes = movetext.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'{' => {
                let end = movetext[i..]
                    .find('}')
                    .ok_or(PgnSyntaxError::Unterminated("comment"))?;
                if depth == 0 {
                    out.push(Token::Comment(movetext[i + 1..i + end].trim()));
                }
                i += end + 1;
            }
            b';' => {
                i += movetext[i..].find('\n').unwrap_or(movetext.len() - i);
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            // A `}` that closes no comment is stray punctuation: skipped (a word cannot start
            // with it, and stopping there would not move on).
            c if c.is_ascii_whitespace() || c == b'}' => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !b"{}();".contains(&bytes[i])
                {
                    i += 1;
                }
                if depth == 0 {
                    push_word(&mut out, &movetext[start..i]);
                }
            }
        }
    }
    if depth > 0 {
        return Err(PgnSyntaxError::Unterminated("variation"));
    }
    Ok(out)
}

fn push_word<'a>(out: &mut Vec<Token<'a>>, word: &'a str) {
    if word.starts_with('$') {
        return;
    }
    if word == ".." {
        out.push(Token::Separator);
        return;
    }
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
        out.push(Token::Result(word));
        return;
    }
    // A move number, possibly glued to the move that follows ("12.e4", "3...Nf6").
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && word[digits..].starts_with('.') {
        let dots = word[digits..].bytes().take_while(|&b| b == b'.').count();
        out.push(Token::Number(word[..digits].parse().unwrap_or(0)));
        let rest = &word[digits + dots..];
        if !rest.is_empty() {
            push_word(out, rest);
        }
        return;
    }
    out.push(Token::Word(word));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_movetext_split() {
        let (tags, movetext) =
            split_tags("[Event \"a \\\"b\\\"\"]\n[Site \"x\"]\n\n1. e4 e5 *\n").unwrap();
        assert_eq!(
            tags,
            vec![
                ("Event".into(), "a \"b\"".into()),
                ("Site".into(), "x".into())
            ]
        );
        assert_eq!(movetext, "1. e4 e5 *\n");
        let mut out = String::new();
        write_tag(&mut out, "Event", "a \"b\"");
        assert_eq!(out, "[Event \"a \\\"b\\\"\"]\n");
    }

    #[test]
    fn a_tag_value_may_run_over_several_lines() {
        let text =
            "[GameNr \"4\"]\n[StartFen4 \"R-0,0,0,0-\n  3,yR/\n14\"]\n[Red \"ana\"]\n\n1. h2-h3\n";
        let (tags, movetext) = split_tags(text).unwrap();
        assert_eq!(
            tags,
            vec![
                ("GameNr".into(), "4".into()),
                ("StartFen4".into(), "R-0,0,0,0-\n3,yR/\n14".into()),
                ("Red".into(), "ana".into()),
            ]
        );
        assert_eq!(movetext, "1. h2-h3\n");
        // A value that never closes is an error naming its first line.
        assert_eq!(
            split_tags("[Event \"x\"]\n[Site \"open\n1. h2-h3\n"),
            Err(PgnSyntaxError::Tag {
                line: 2,
                text: "[Site \"open".into()
            })
        );
    }

    #[test]
    fn comments_variations_and_glyphs_are_skipped() {
        let t = tokens("1. e4 {best by test} e5 (1... c5 {x} 2. Nf3 (2. c3)) 2.Nf3 $1 ; comment\n 2... Nc6 1-0").unwrap();
        use Token::*;
        assert_eq!(
            t,
            vec![
                Number(1),
                Word("e4"),
                Comment("best by test"),
                Word("e5"),
                Number(2),
                Word("Nf3"),
                Number(2),
                Word("Nc6"),
                Result("1-0")
            ]
        );
        assert!(tokens("1. e4 {open").is_err());
        assert_eq!(
            tokens("1. e4 } e5").unwrap(),
            vec![Number(1), Word("e4"), Word("e5")]
        );
        assert!(tokens("1. e4 (e5").is_err());
    }
}
