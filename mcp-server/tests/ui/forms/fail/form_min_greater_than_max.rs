use typemcp_server::{ElicitForm, FormChoice};

#[derive(FormChoice)]
enum Topping {
    Cheese,
    Olives,
}

#[derive(ElicitForm)]
struct Order {
    #[form(min_length = 10, max_length = 5)]
    note: String,
    #[form(minimum = 10, maximum = 1)]
    quantity: u32,
    #[form(min_items = 3, max_items = 1)]
    toppings: Vec<Topping>,
}

fn main() {}
