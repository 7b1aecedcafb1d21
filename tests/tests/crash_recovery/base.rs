//! Where the server is: its HTTP and WebSocket addresses, and the few calls the test makes over
//! HTTP.

use std::time::Instant;

use anyhow::{Result, bail, ensure};
use fourkings_protocol::{CreateRoomResponse, RoomInfo, ServerMessage, SettingsPatch, Snapshot};
use fourkings_tests::{Client, ServerProcess};

/// Where the server is.
#[derive(Clone)]
pub(crate) struct Base {
    pub(crate) http: String,
    pub(crate) ws: String,
    pub(crate) client: reqwest::Client,
}

impl Base {
    pub(crate) fn of(server: &ServerProcess) -> Base {
        Base {
            http: server.base.clone(),
            ws: server.base.replace("http://", "ws://"),
            client: reqwest::Client::new(),
        }
    }

    /// Opens a room's WebSocket and reads the snapshot that comes first. The server wrote it
    /// between the two moments returned: before connecting, and after it arrived.
    pub(crate) async fn connect(
        &self,
        room: &str,
    ) -> Result<(Client, Snapshot, (Instant, Instant))> {
        let asked = Instant::now();
        let mut client = Client::open(&format!("{}/ws/{room}", self.ws)).await?;
        match client.try_next().await? {
            ServerMessage::Snapshot(snapshot) => Ok((client, *snapshot, (asked, Instant::now()))),
            other => bail!("expected a snapshot first, got {other:?}"),
        }
    }

    pub(crate) async fn create(&self, patch: &SettingsPatch) -> Result<CreateRoomResponse> {
        let response = self
            .client
            .post(format!("{}/api/rooms", self.http))
            .body(serde_json::to_string(patch)?)
            .send()
            .await?;
        ensure!(
            response.status() == 201,
            "creating a room: {}",
            response.status()
        );
        Ok(response.json().await?)
    }

    pub(crate) async fn info(&self, room: &str) -> Result<RoomInfo> {
        let response = self
            .client
            .get(format!("{}/api/rooms/{room}", self.http))
            .send()
            .await?;
        ensure!(
            response.status() == 200,
            "GET /api/rooms/{room}: {}",
            response.status()
        );
        Ok(response.json().await?)
    }

    pub(crate) async fn status_of(&self, path: &str) -> Result<u16> {
        Ok(self
            .client
            .get(format!("{}{path}", self.http))
            .send()
            .await?
            .status()
            .as_u16())
    }
}
