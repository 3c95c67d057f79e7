use typemcp_server::ElicitForm;

/// Every mistake is reported in one build: a value of the wrong type, an unknown key or a
/// malformed entry does not stop the keys after it.
#[derive(ElicitForm)]
struct Signup {
    #[form(min_length = "two", title = 3, max_length = 5 5, placeholder = "Ann", format = "phone")]
    name: String,
    #[form(
        minimum = "low",
        legacy_enum_names = "yes",
        title,
        description = "Whole years."
    )]
    age: u8,
}

fn main() {
    // The form still implements `ElicitForm`: its uses report nothing more.
    let _ = Signup::requested_schema();
}
