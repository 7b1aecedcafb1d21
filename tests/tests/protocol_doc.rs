//! The protocol document, `protocol/README.md`, against the protocol types. Every JSON example in
//! it is in a fenced block labelled with what it is (`json client`, `json server`, `json http-…`);
//! each must parse into that type and serialise back to the same JSON, so the examples carry no
//! field the types would drop, and validate against the JSON Schema generated from the types
//! (`protocol/schema.json`, also served at `GET /api/schema.json`). The examples must also cover
//! every client message, server message and event, and the error table every error code.

use std::collections::BTreeSet;

use fourkings_protocol::schema;
use fourkings_protocol::{
    ClientMessage, ClientRequest, CreateRoomResponse, ErrorBody, ErrorCode, Event, GameHistory,
    RoomInfo, ServerMessage, SettingsPatch,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The document, read at compile time (a change to it rebuilds this test).
const DOC: &str = include_str!("../../protocol/README.md");

/// One fenced block of the document.
struct Block {
    /// The line of its opening fence (1-based).
    line: usize,
    /// The info string after the fence (`json client`).
    info: String,
    /// Its text.
    body: String,
}

/// Every fenced block, in order.
fn blocks() -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in DOC.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    line: index + 1,
                    info: info.trim().to_owned(),
                    body: String::new(),
                });
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => {
                blocks.extend(open.take());
            }
            (Some(block), _) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    blocks
}

/// The label of a JSON block (`client` in `json client`), or `None` for another language.
fn label(block: &Block) -> Option<&str> {
    let mut words = block.info.split_whitespace();
    (words.next() == Some("json")).then(|| words.next().unwrap_or(""))
}

/// Parses `value` as a `T` and serialises it back.
fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(T, Value), String> {
    let parsed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let back = serde_json::to_value(&parsed).map_err(|e| e.to_string())?;
    Ok((parsed, back))
}

/// What the examples showed.
#[derive(Default)]
struct Seen {
    client_types: BTreeSet<&'static str>,
    server_types: BTreeSet<&'static str>,
    event_kinds: BTreeSet<&'static str>,
    labels: BTreeSet<String>,
}

/// The name in the schema's `$defs` of what a block with `label` holds.
fn schema_name(label: &str) -> Option<&'static str> {
    Some(match label {
        "client" => "ClientRequest",
        "server" => "ServerMessage",
        "http-create-request" => "SettingsPatch",
        "http-create-response" => "CreateRoomResponse",
        "http-room-info" => "RoomInfo",
        "http-game-history" => "GameHistory",
        "http-error" => "ErrorBody",
        _ => return None,
    })
}

/// Validates `value` against the definition `name` of the generated schema.
fn validate(value: &Value, name: &str) -> Result<(), String> {
    let mut schema = schema::document();
    schema["$ref"] = Value::String(format!("#/$defs/{name}"));
    schema
        .as_object_mut()
        .expect("the schema is an object")
        .retain(|key, _| key.starts_with('$'));
    let validator = jsonschema::validator_for(&schema).map_err(|e| format!("the schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "does not validate as {name}: {}",
            errors.join("; ")
        ))
    }
}

/// Checks one JSON block; returns what is wrong with it.
fn check(block: &Block, label: &str, seen: &mut Seen) -> Result<(), String> {
    let value: Value = serde_json::from_str(&block.body).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(name) = schema_name(label) {
        validate(&value, name)?;
    }
    let back = match label {
        "client" => {
            let (request, mut back) = round_trip::<ClientRequest>(&value)?;
            let kind = request.message.kind();
            if value["type"] != kind {
                return Err(format!("type {} is not {kind:?}", value["type"]));
            }
            seen.client_types.insert(kind);
            // Optional fields may be left out of a request: drop the defaults the type filled in.
            if let (Some(back), Some(example)) = (back.as_object_mut(), value.as_object()) {
                back.retain(|key, v| {
                    example.contains_key(key) || !(v.is_null() || v == &Value::Array(Vec::new()))
                });
            }
            back
        }
        "server" => {
            let (message, back) = round_trip::<ServerMessage>(&value)?;
            let kind = message.kind();
            if value["type"] != kind {
                return Err(format!("type {} is not {kind:?}", value["type"]));
            }
            seen.server_types.insert(kind);
            if let ServerMessage::Event { event, .. } = &message {
                let kind = event.kind();
                if value["event"]["kind"] != kind {
                    return Err(format!("kind {} is not {kind:?}", value["event"]["kind"]));
                }
                seen.event_kinds.insert(kind);
            }
            back
        }
        "http-create-request" => round_trip::<SettingsPatch>(&value)?.1,
        "http-create-response" => round_trip::<CreateRoomResponse>(&value)?.1,
        "http-room-info" => round_trip::<RoomInfo>(&value)?.1,
        "http-game-history" => round_trip::<GameHistory>(&value)?.1,
        "http-error" => round_trip::<ErrorBody>(&value)?.1,
        "" => return Err("a JSON example needs a label: json client, json server, ...".into()),
        other => return Err(format!("unknown label {other:?}")),
    };
    seen.labels.insert(label.to_owned());
    if back != value {
        return Err(format!(
            "does not survive a round trip through the type: it reads back as\n{back:#}"
        ));
    }
    Ok(())
}

/// Checks every block, then what they cover.
fn examples() -> Seen {
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    let mut count = 0;
    for block in blocks() {
        let Some(label) = label(&block) else { continue };
        count += 1;
        if let Err(e) = check(&block, label, &mut seen) {
            failures.push(format!(
                "protocol/README.md line {} (```{}): {e}",
                block.line, block.info
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(count >= 40, "only {count} JSON examples");
    seen
}

#[test]
fn every_example_parses_into_its_type_and_back() {
    let seen = examples();
    let labels: Vec<&str> = seen.labels.iter().map(String::as_str).collect();
    assert_eq!(
        labels,
        [
            "client",
            "http-create-request",
            "http-create-response",
            "http-error",
            "http-game-history",
            "http-room-info",
            "server"
        ]
    );
}

#[test]
fn every_client_message_has_an_example() {
    let seen = examples();
    let missing: Vec<_> = ClientMessage::kinds()
        .iter()
        .filter(|t| !seen.client_types.contains(**t))
        .collect();
    assert!(missing.is_empty(), "no example of {missing:?}");
}

#[test]
fn every_server_message_and_event_has_an_example() {
    let seen = examples();
    let missing: Vec<_> = ServerMessage::kinds()
        .iter()
        .filter(|t| !seen.server_types.contains(**t))
        .collect();
    assert!(
        missing.is_empty(),
        "no example of server message {missing:?}"
    );
    let missing: Vec<_> = Event::kinds()
        .iter()
        .filter(|k| !seen.event_kinds.contains(**k))
        .collect();
    assert!(missing.is_empty(), "no example of event {missing:?}");
}

/// The codes in the first column of the error table (rows like ``| `bad_json` | ... |``) of the
/// section "Error codes".
fn error_table() -> Vec<(usize, String)> {
    let lines: Vec<&str> = DOC.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "## Error codes")
        .expect("a section \"Error codes\"");
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |n| start + 1 + n);
    (start..end)
        .filter_map(|i| {
            let (code, _) = lines[i].strip_prefix("| `")?.split_once("` |")?;
            Some((i + 1, code.to_owned()))
        })
        .collect()
}

#[test]
fn the_error_table_lists_every_error_code_once() {
    let table = error_table();
    for &code in ErrorCode::ALL {
        let rows = table.iter().filter(|(_, c)| c == code.as_str()).count();
        assert_eq!(
            rows,
            1,
            "`{}` is in {rows} rows of the table",
            code.as_str()
        );
    }
    for (line, code) in &table {
        assert!(
            serde_json::from_value::<ErrorCode>(Value::String(code.clone())).is_ok(),
            "protocol/README.md line {line}: `{code}` is no error code"
        );
    }
    assert_eq!(table.len(), ErrorCode::ALL.len());
}

/// The first column of the table that opens the section `heading` (`## Client messages`): the
/// names in backticks, in order.
fn table_names(heading: &str) -> Vec<String> {
    let section = DOC
        .split_once(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("protocol/README.md has no {heading:?}"))
        .1;
    section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .filter_map(|row| {
            let first = row.split('|').nth(1)?.trim();
            Some(first.trim_matches('`').to_owned())
        })
        .collect()
}

/// A message added to the types and forgotten in the document's tables fails here, and so does
/// a table row for a message that is gone: the tables list every name once, in the types' order.
#[test]
fn the_tables_list_every_message_and_event_in_the_types_order() {
    for (heading, kinds) in [
        ("## Client messages", ClientMessage::kinds()),
        ("## Server messages", ServerMessage::kinds()),
        ("## Events", Event::kinds()),
    ] {
        assert_eq!(table_names(heading), kinds, "the table under {heading:?}");
        for kind in kinds {
            let named = format!("`{kind}`");
            assert!(
                DOC.lines()
                    .any(|line| line.starts_with("### ") && line.contains(&named)),
                "protocol/README.md has no section headed {named}"
            );
        }
    }
}

/// The schema is not vacuous: what the server refuses as `unknown_type`, `invalid_message` or
/// `bad_seat` does not validate, and the same messages put right do.
#[test]
fn the_schema_refuses_malformed_messages() {
    let refused = [
        r#"{"type":"dance","req":1}"#,
        r#"{"type":"move","req":1,"seat":0,"ply":0,"move":"h2h4"}"#,
        r#"{"type":"move","req":1,"seat":4,"token":"t","ply":0,"move":"h2h4"}"#,
        r#"{"type":"move","req":-1,"seat":0,"token":"t","ply":0,"move":"h2h4"}"#,
        r#"{"type":"take_seat","seat":0,"name":"Ann"}"#,
        r#"{"type":"chat","req":1,"channel":"everyone","text":"hi"}"#,
        r#"{"type":"update_settings","req":1,"host_token":"h","settings":{"castling":"yes"}}"#,
    ];
    for text in refused {
        let value: Value = serde_json::from_str(text).unwrap();
        assert!(
            validate(&value, "ClientRequest").is_err(),
            "{text} validates"
        );
        assert!(
            serde_json::from_value::<ClientRequest>(value).is_err(),
            "{text} reads"
        );
    }
    let accepted = [
        r#"{"type":"ping","req":1}"#,
        r#"{"type":"move","req":1,"seat":3,"token":"t","ply":0,"move":"h2h4"}"#,
        r#"{"type":"take_seat","req":2,"seat":0,"name":"Ann"}"#,
        r#"{"type":"chat","req":1,"channel":"spectators","text":"hi"}"#,
        r#"{"type":"update_settings","req":1,"host_token":"h","settings":{"castling":false}}"#,
    ];
    for text in accepted {
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(validate(&value, "ClientRequest"), Ok(()), "{text}");
        assert!(
            serde_json::from_value::<ClientRequest>(value).is_ok(),
            "{text}"
        );
    }
}

/// The checked-in document is what the types make, and what the server serves.
#[tokio::test]
async fn the_server_serves_the_schema_the_types_make() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol/schema.json");
    let stored = std::fs::read_to_string(path).expect("protocol/schema.json is checked in");
    assert!(
        stored == schema::document_text(),
        "protocol/schema.json is not what the types make: run \
         `cargo run -p fourkings-server -- schema > protocol/schema.json`"
    );
    let server = fourkings_tests::TestServer::start().await;
    let response = server.get("/api/schema.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/schema+json"
    );
    let served = response.text().await.unwrap();
    assert_eq!(served, stored);
    let document: Value = serde_json::from_str(&served).unwrap();
    assert_eq!(
        document["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    for name in ["ClientMessage", "ClientRequest", "ServerMessage", "Event"] {
        assert!(document["$defs"][name].is_object(), "$defs has {name}");
    }
    for (_, name) in schema::HTTP_BODIES {
        assert!(document["$defs"][name].is_object(), "$defs has {name}");
    }
}

/// The table of each preset's defaults, as `(field, [(preset, JSON value)])` rows.
fn preset_defaults() -> Vec<(String, Vec<(String, Value)>)> {
    let section = DOC
        .split_once("\n#### Each preset's defaults\n")
        .expect("protocol/README.md has a table of each preset's defaults")
        .1;
    let mut rows = section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .map(|row| {
            row.split('|')
                .skip(1)
                .map(|cell| cell.trim().trim_matches('`').to_owned())
                .filter(|cell| !cell.is_empty())
                .collect::<Vec<_>>()
        });
    let presets = rows.next().expect("a header row")[1..].to_vec();
    rows.skip(1)
        .map(|cells| {
            let values = presets
                .iter()
                .zip(&cells[1..])
                .map(|(preset, cell)| {
                    let value = serde_json::from_str(cell)
                        .unwrap_or_else(|e| panic!("{}: {cell} is not JSON: {e}", cells[0]));
                    (preset.clone(), value)
                })
                .collect();
            (cells[0].clone(), values)
        })
        .collect()
}

/// The table of each preset's defaults says what a room of the preset alone starts with: every
/// field, every preset.
#[tokio::test]
async fn each_presets_defaults_are_what_the_server_gives() {
    let table = preset_defaults();
    let server = fourkings_tests::TestServer::start().await;
    let mut presets = BTreeSet::new();
    let mut fields = BTreeSet::new();
    for (field, values) in &table {
        fields.insert(field.clone());
        for (preset, expected) in values {
            presets.insert(preset.clone());
            let patch = SettingsPatch {
                preset: Some(preset.clone()),
                ..SettingsPatch::default()
            };
            let room = server.create_room(&patch).await;
            let info: Value = server
                .get(&format!("/api/rooms/{}", room.id))
                .await
                .json()
                .await
                .unwrap();
            assert_eq!(
                &info["settings"][field], expected,
                "{preset}'s {field}: the server gives {}, the table says {expected}",
                info["settings"][field]
            );
        }
    }
    let room = server.create_room(&SettingsPatch::default()).await;
    let info: Value = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    let every_field: BTreeSet<String> = info["settings"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|field| *field != "preset")
        .cloned()
        .collect();
    assert_eq!(fields, every_field, "the table has a row for every setting");
    let every_preset: BTreeSet<String> = fourkings_engine::Preset::ALL
        .iter()
        .map(|preset| preset.to_string())
        .collect();
    assert_eq!(
        presets, every_preset,
        "the table has a column for every preset"
    );
}
