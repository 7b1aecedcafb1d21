//! The protocol as one JSON Schema document (draft 2020-12), generated from the types: what a
//! client in another language can check its messages against or generate its types from. The
//! server serves it at `GET /api/schema.json`; `protocol/schema.json` is the same document,
//! checked in (a test fails when it is not current; `fourkings schema` writes it).

use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Value, json};

use crate::{
    ClientMessage, ClientRequest, CreateRoomResponse, ErrorBody, GameHistory, PROTOCOL_VERSION,
    RoomInfo, ServerMessage, SettingsPatch,
};

/// The names in `$defs` of the documents that are not WebSocket messages: the bodies of the HTTP
/// API, by the path that carries them.
pub const HTTP_BODIES: &[(&str, &str)] = &[
    ("POST /api/rooms (request)", "SettingsPatch"),
    ("POST /api/rooms (response)", "CreateRoomResponse"),
    ("GET /api/rooms/<id>", "RoomInfo"),
    ("GET /api/rooms/<id>/game/history", "GameHistory"),
    ("any error of the HTTP API", "ErrorBody"),
];

/// The whole document. Its `$defs` name every type of the protocol; `ClientRequest` is what a
/// client sends (a `ClientMessage` and its `req`), `ServerMessage` what the server sends, and the
/// root accepts either.
///
/// What the server reads is described as it reads it (a field with a default may be left out),
/// what it writes as it writes it (a field it always writes is required, `null` included), so
/// that a client generating types from the document gets the fields it can count on. A type
/// that goes both ways must read the same in both (a test checks it).
pub fn document() -> Value {
    let mut reading = SchemaGenerator::new(SchemaSettings::draft2020_12().for_deserialize());
    register::<ClientRequest>(&mut reading);
    register::<ClientMessage>(&mut reading);
    register::<SettingsPatch>(&mut reading);
    let writing_settings = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(present_means_not_null));
    let mut writing = SchemaGenerator::new(writing_settings);
    register::<ServerMessage>(&mut writing);
    register::<CreateRoomResponse>(&mut writing);
    register::<RoomInfo>(&mut writing);
    register::<GameHistory>(&mut writing);
    register::<ErrorBody>(&mut writing);
    let mut definitions: BTreeMap<String, Value> =
        reading.take_definitions(true).into_iter().collect();
    for (name, schema) in writing.take_definitions(true) {
        if let Some(read) = definitions.get(&name) {
            assert_eq!(
                read, &schema,
                "{name} is read and written, and its schema differs between the two"
            );
        }
        definitions.insert(name, schema);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": format!("The Four Kings protocol, version {PROTOCOL_VERSION}"),
        "description": "Every WebSocket text frame is a ClientRequest (client to server) or a ServerMessage (server to client); the HTTP API's bodies are SettingsPatch, CreateRoomResponse, RoomInfo, GameHistory and ErrorBody. protocol/README.md says what each field means and when each message is sent.",
        "anyOf": [
            { "$ref": "#/$defs/ClientRequest" },
            { "$ref": "#/$defs/ServerMessage" }
        ],
        "$defs": definitions,
    })
}

/// What the server writes leaves an absent value out (`skip_serializing_if`) rather than writing
/// `null`, so a field it may leave out is never `null` when present: the schema says so, and a
/// client's generated types need no `null` check there. (As the server writes, a field is left out
/// of `required` only when it may be skipped.)
fn present_means_not_null(schema: &mut Schema) {
    let required: Vec<Value> = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, property) in properties {
        if required.iter().any(|r| r == name.as_str()) {
            continue;
        }
        if let Some(Value::Array(types)) = property.get_mut("type") {
            types.retain(|t| t != "null");
            if let [only] = types.as_slice() {
                let only = only.clone();
                property["type"] = only;
            }
        }
        if let Some(Value::Array(options)) = property.get_mut("anyOf") {
            options.retain(|option| option.get("type").is_none_or(|t| t != "null"));
            if let [only] = options.as_slice() {
                let only = only.clone();
                let object = property
                    .as_object_mut()
                    .expect("a property with anyOf is an object");
                object.remove("anyOf");
                if let Value::Object(inner) = only {
                    object.extend(inner);
                }
            }
        }
    }
}

/// Puts `T` into the generator's `$defs` under its name (the reference it returns is not needed:
/// the root names the messages itself).
fn register<T: JsonSchema>(generator: &mut SchemaGenerator) {
    generator.subschema_for::<T>();
}

/// The document as it is checked in and served: pretty-printed, with a final newline.
pub fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).expect("a schema serialises");
    text.push('\n');
    text
}
