//! Every committed seed through its target, as a plain test (`cargo test` here): the seeds
//! stay valid inputs, and the targets' own checks hold on them.

use std::path::Path;

fn run_corpus(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut count = 0;
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        run(&data);
        count += 1;
    }
    assert!(count > 0, "no seeds in {}", dir.display());
}

#[test]
fn jsonrpc_seeds() {
    run_corpus("jsonrpc", crate::jsonrpc::run);
}

#[test]
fn state_token_seeds() {
    run_corpus("state_token", crate::state_token::run);
}

#[test]
fn input_responses_seeds() {
    run_corpus("input_responses", crate::input_responses::run);
}

#[test]
fn uri_template_seeds() {
    run_corpus("uri_template", crate::uri_template::run);
}

#[test]
fn http_headers_seeds() {
    run_corpus("http_headers", crate::http_headers::run);
}

/// Writes the `state_token` seeds (tokens minted at the fixed clock, so they stay valid):
/// `cargo test --lib -- --ignored write_state_token_seeds`.
#[test]
#[ignore = "writes the state_token seeds"]
fn write_state_token_seeds() {
    use crate::state_token::{BOUND, SEED_PAYLOADS, single};
    use typemcp_core::state::{Binding, Protection};

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/state_token");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let write = |name: &str, selector: u8, body: &[u8]| {
        let mut data = vec![selector];
        data.extend_from_slice(body);
        std::fs::write(dir.join(name), data).unwrap_or_else(|e| panic!("{e}"));
    };
    let bound = Binding::from_parts(BOUND);
    for (mode, tag) in [
        (Protection::Signed, "signed"),
        (Protection::Sealed, "sealed"),
    ] {
        for (id, payload, binding, what) in [
            ("a", SEED_PAYLOADS[0], None, "empty"),
            ("a", SEED_PAYLOADS[1], None, "state"),
            ("b", SEED_PAYLOADS[2], Some(&bound), "bound"),
            ("old", SEED_PAYLOADS[1], None, "retired"),
        ] {
            let token = single(id, mode).sign(payload, binding);
            write(&format!("token_{tag}_{id}_{what}"), 0, token.as_bytes());
        }
    }
    write(
        "token_v2",
        0,
        b"mcp2.YQ.1800000600.AAAAAAAAAAAAAAAAAAAAAA.e30.AAAA",
    );
    write(
        "token_padded",
        0,
        b"mcp3.YQ==.1800000600.AAAAAAAAAAAAAAAAAAAAAA.e30.AAAA",
    );
    // Mutations: pick a token, then (op, a, b) triples.
    write("edit_byte", 1, &[0, 0, 10, b'X']);
    write("edit_swap_parts", 1, &[3, 4, 3, 4]);
    write("edit_copy_kid", 1, &[1, 5, 1, 2]);
    write("edit_truncate", 1, &[6, 3, 40, 0]);
    write("edit_expiry", 1, &[2, 5, 2, 9, 0, 20, b'9']);
    write(
        "edit_binding",
        1,
        &[4, 7, 0, 0, b'o', b't', b'h', b'e', b'r'],
    );
    write("edit_repeat_insert", 1, &[5, 6, 2, 0, 1, 30, b'A']);
    let k1 = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE";
    let k2 = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI";
    write(
        "ring",
        2,
        format!("# keys\nnew:{k1},\nold:{k2}:1800000000\n c:{k1}\n").as_bytes(),
    );
    write("ring_bad", 2, format!("a:{k1},a:{k2}").as_bytes());
    write("key_url_safe", 3, k1.as_bytes());
    write(
        "key_standard_padded",
        3,
        b"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
    );
}
