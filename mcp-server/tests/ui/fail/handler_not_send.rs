use std::rc::Rc;

use typemcp_server::tool;

#[tool]
async fn count() -> usize {
    let shared = Rc::new(41);
    tokio::task::yield_now().await;
    *shared + 1
}

fn main() {}
