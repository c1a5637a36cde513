//! What `mcpick serve` adds: the same requests to the fixture server, direct and through
//! `serve`, side by side in one run (DESIGN.md budget: ≤ 1 ms median added per
//! `resources/read`).
//!
//! - `serve/read`: one `resources/read` of the demo's README (862 bytes).
//! - `serve/list_100k`: paging through 100,000 published resources (`--expose allowed`, no
//!   budget), against paging the same catalogue from the fixture itself.
//!
//! `python3 benches/summary.py serve` prints the medians.

use std::collections::BTreeMap;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mcpick::mcp::log::ServerLog;
use mcpick::mcp::{ConnectOptions, Connection, ListOptions, ServerSpec, TransportSpec};

const BIN: &str = env!("CARGO_BIN_EXE_mcpick");

fn spec(name: &str, args: &[&str], home: &std::path::Path) -> ServerSpec {
    let home = home.to_string_lossy().into_owned();
    ServerSpec {
        name: name.into(),
        transport: TransportSpec::Stdio {
            command: BIN.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::from([
                ("HOME".into(), home.clone()),
                ("XDG_CONFIG_HOME".into(), format!("{home}/.config")),
            ]),
            cwd: Some(home.into()),
        },
    }
}

async fn connect(spec: &ServerSpec) -> Connection {
    let options = ConnectOptions {
        timeout: Duration::from_secs(120),
        ..ConnectOptions::default()
    };
    Connection::connect(spec, &options, ServerLog::new(100))
        .await
        .expect("connect")
}

async fn list_all(connection: &Connection) -> usize {
    connection
        .list_resources(&ListOptions::default(), |_| {})
        .await
        .expect("list")
        .count
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    // Every audience, so that all 100,000 resources of the big catalogue are published.
    let set = home.path().join("bench.context.json");
    std::fs::write(
        &set,
        r#"{"version": 1, "marks": [], "policy": {"audience": "any"}, "servers": {}}"#,
    )
    .unwrap();
    let set = set.to_str().unwrap();
    let demo = ["demo-server"];
    let big = ["demo-server", "--count", "100000", "--page-size", "1000"];
    let through = |upstream: &[&str], expose: &str| {
        let mut args = vec![
            "serve", "--set", set, "--expose", expose, "--name", "up", "--", BIN,
        ];
        args.extend_from_slice(upstream);
        spec("serve", &args, home.path())
    };
    let (direct, served, big_direct, big_served) = runtime.block_on(async {
        (
            connect(&spec("demo", &demo, home.path())).await,
            connect(&through(&demo, "included")).await,
            connect(&spec("big", &big, home.path())).await,
            connect(&through(&big, "allowed")).await,
        )
    });
    assert_eq!(runtime.block_on(list_all(&big_served)), 100_000);

    let mut group = c.benchmark_group("serve");
    let uri = "file:///project/README.md";
    group.bench_function("read/direct", |b| {
        b.iter(|| runtime.block_on(direct.read(uri)).expect("read"))
    });
    group.bench_function("read/through_serve", |b| {
        b.iter(|| runtime.block_on(served.read(uri)).expect("read"))
    });
    group.sample_size(10);
    group.bench_function("list_100k/direct", |b| {
        b.iter(|| runtime.block_on(list_all(&big_direct)))
    });
    group.bench_function("list_100k/through_serve", |b| {
        b.iter(|| runtime.block_on(list_all(&big_served)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
