//! The accept loop at its connection cap.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::serve_until;

/// Connections that send nothing hold every slot; a client with a request is still answered
/// at once (well before `--header-timeout`), in place of the one that waited longest.
#[tokio::test]
async fn idle_connections_at_the_cap_do_not_keep_a_request_waiting() {
    const CAP: usize = 4;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = axum::Router::new().route("/x", axum::routing::get(|| async { "ok" }));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_until(
        listener,
        app,
        Duration::from_secs(600),
        CAP,
        async move {
            let _ = stopped.await;
        },
    ));
    let mut idle = Vec::new();
    for _ in 0..CAP {
        idle.push(TcpStream::connect(addr).await.expect("connect"));
        // Accepted in this order, so the first has waited longest.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let patience = Duration::from_secs(30);
    let answer = tokio::time::timeout(patience, async {
        let mut client = TcpStream::connect(addr).await.expect("connect");
        client
            .write_all(b"GET /x HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n")
            .await
            .expect("request");
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.expect("answer");
        answer
    })
    .await
    .expect("answered while idle connections held every slot");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("ok"), "{answer}");
    // The one closed for room was the oldest; the others are still open.
    let mut byte = [0u8; 1];
    let closed = tokio::time::timeout(patience, idle[0].read(&mut byte))
        .await
        .expect("the oldest idle connection is closed");
    assert!(matches!(closed, Ok(0) | Err(_)), "{closed:?}");
    for still in &mut idle[1..] {
        let open = tokio::time::timeout(Duration::from_millis(100), still.read(&mut byte)).await;
        assert!(
            open.is_err(),
            "a newer idle connection was closed: {open:?}"
        );
    }
    let _ = stop.send(());
    drop(idle);
    tokio::time::timeout(patience, server)
        .await
        .expect("the server stops")
        .expect("task")
        .expect("served");
}
