//! A minimal LSP client over the real binary's stdio (JSON-RPC framing
//! by hand), shared by the protocol tests and the latency benchmark.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages received while waiting for something else.
    pub backlog: Vec<Value>,
    /// The server's answer to `initialize`.
    pub initialize_result: Value,
    /// What the client answers to `workspace/configuration` (the `slang`
    /// section).
    pub settings: Value,
}

pub const TIMEOUT: Duration = Duration::from_secs(30);

impl Client {
    pub fn start() -> Client {
        Self::start_with(json!({}))
    }

    pub fn start_with(capabilities: Value) -> Client {
        Self::start_in(capabilities, None, Value::Null)
    }

    /// Starts with a workspace folder (`root`, a path) and initialization
    /// options; server-to-client requests are answered (configuration with
    /// [`Client::settings`], anything else with `null`).
    pub fn start_in(capabilities: Value, root: Option<&str>, options: Value) -> Client {
        // `SLANG_ANALYZER_BIN`: another build of the server (the latency
        // bench compares two builds in the same time window).
        let bin = std::env::var_os("SLANG_ANALYZER_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_slang-analyzer").into());
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start slang-analyzer");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let mut buf = vec![0; len.expect("Content-Length")];
                if r.read_exact(&mut buf).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&buf).expect("server sent JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            rx,
            next_id: 1,
            backlog: Vec::new(),
            initialize_result: Value::Null,
            settings: options.get("slang").cloned().unwrap_or(json!({})),
        };
        let root_uri = root.map(|r| format!("file://{r}"));
        let folders = root_uri.as_ref().map(|u| json!([{"uri": u, "name": "ws"}])).unwrap_or(Value::Null);
        let r = c.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "workspaceFolders": folders,
                   "capabilities": capabilities, "initializationOptions": options}),
        );
        assert!(r["result"]["capabilities"].is_object(), "{r}");
        c.initialize_result = r["result"].clone();
        c.notify("initialized", json!({}));
        c
    }

    pub fn send_raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{}", body.len(), body).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        self.send_raw(&body);
    }

    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.send_raw(&body);
        id
    }

    /// The next message satisfying `pred` (others are kept).
    pub fn wait_for(&mut self, pred: &dyn Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if v.get("method").is_some() && v.get("id").is_some() => {
                    let result = match v["method"].as_str() {
                        Some("workspace/configuration") => json!([self.settings.clone()]),
                        _ => Value::Null,
                    };
                    let body = json!({"jsonrpc": "2.0", "id": v["id"].clone(), "result": result}).to_string();
                    self.send_raw(&body);
                    if pred(&v) {
                        return v;
                    }
                    self.backlog.push(v);
                }
                Ok(v) if pred(&v) => return v,
                Ok(v) => self.backlog.push(v),
                Err(RecvTimeoutError::Timeout) => panic!("timed out; received: {:#?}", self.backlog),
                Err(RecvTimeoutError::Disconnected) => panic!("server exited; received: {:#?}", self.backlog),
            }
        }
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(&|v| v["id"] == json!(id) && v.get("method").is_none())
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// The next `publishDiagnostics` for `uri` with `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let v = self.wait_for(&|v| {
            v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == uri
                && v["params"]["version"] == json!(version)
        });
        v["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "slang", "version": 1, "text": text}}),
        );
    }

    pub fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
