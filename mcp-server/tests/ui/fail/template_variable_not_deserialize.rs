use typemcp_server::resource;

struct NoteId(u32);

#[resource(template = "notes://{id}")]
async fn note(id: NoteId) -> String {
    format!("Note {}", id.0)
}

fn main() {}
