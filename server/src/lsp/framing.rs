//! A guard between stdio and the LSP service: whole messages only.
//!
//! tower-lsp-server's reader stops for good after the first message it
//! cannot decode (tokio-util's `FramedRead` ends after an error), which
//! would end the server on one bad message. So stdin is read here: well
//! formed JSON-RPC messages go on to the service through a pipe, anything
//! else is answered here with a parse error (-32700) or an invalid request
//! (-32600) and skipped. The service's output comes back through a pipe
//! too, so that these answers never interleave with its messages.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// One framed message: `Ok(body)`, or `Err` for a frame without a valid
/// header (the bytes are skipped).
async fn read_frame<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> std::io::Result<Option<Result<Vec<u8>, ()>>> {
    let mut len: Option<usize> = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let l = line.trim_end_matches(['\r', '\n']);
        if l.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = l.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                len = value.trim().parse().ok();
            }
        }
    }
    let Some(len) = len.filter(|&n| n <= 256 << 20) else { return Ok(Some(Err(()))) };
    let mut body = vec![0; len];
    r.read_exact(&mut body).await?;
    Ok(Some(Ok(body)))
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_response(id: Value, code: i64, message: &str) -> Vec<u8> {
    frame(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string().as_bytes())
}

/// Whether `v` is a message tower-lsp-server can decode.
fn is_message(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.get("jsonrpc") != Some(&json!("2.0")) {
        return false;
    }
    let id_ok = |id: Option<&Value>| id.is_none_or(|id| id.is_string() || id.is_i64() || id.is_u64() || id.is_null());
    match o.get("method") {
        Some(m) => {
            m.is_string()
                && id_ok(o.get("id"))
                && o.get("params").is_none_or(|p| p.is_object() || p.is_array() || p.is_null())
        }
        None => o.contains_key("id") && (o.contains_key("result") || o.contains_key("error")) && id_ok(o.get("id")),
    }
}

/// Copies whole, well-formed messages from `input` to `to_service`;
/// answers the rest on `replies`.
pub async fn filter_input<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    input: R,
    mut to_service: W,
    replies: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut r = BufReader::new(input);
    loop {
        match read_frame(&mut r).await {
            Ok(None) | Err(_) => break,
            Ok(Some(Err(()))) => {
                let _ = replies.send(error_response(Value::Null, -32700, "Parse error: missing Content-Length"));
            }
            Ok(Some(Ok(body))) => match serde_json::from_slice::<Value>(&body) {
                Ok(v) if is_message(&v) => {
                    if to_service.write_all(&frame(&body)).await.is_err() || to_service.flush().await.is_err() {
                        break;
                    }
                }
                Ok(v) => {
                    let id = v.get("id").cloned().filter(|id| id.is_string() || id.is_number()).unwrap_or(Value::Null);
                    let _ = replies.send(error_response(id, -32600, "Invalid request: not a JSON-RPC 2.0 message"));
                }
                Err(e) => {
                    let _ = replies.send(error_response(Value::Null, -32700, &format!("Parse error: {e}")));
                }
            },
        }
    }
    // End of input: the service sees end of file and stops.
    let _ = to_service.shutdown().await;
}

/// Writes the service's messages and the filter's answers to `output`,
/// one whole message at a time.
pub async fn merge_output<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    from_service: R,
    mut replies: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: W,
) {
    let mut r = BufReader::new(from_service);
    loop {
        tokio::select! {
            f = read_frame(&mut r) => match f {
                Ok(Some(Ok(body))) => {
                    if output.write_all(&frame(&body)).await.is_err() || output.flush().await.is_err() {
                        return;
                    }
                }
                Ok(Some(Err(()))) => {}
                // The service stopped (after `exit`, or at end of input).
                Ok(None) | Err(_) => return,
            },
            Some(bytes) = replies.recv() => {
                if output.write_all(&bytes).await.is_err() || output.flush().await.is_err() {
                    return;
                }
            }
        }
    }
}
