use domain::games::chess::perft::perft;
use domain::games::chess::variant::Variant;

#[test]
fn perft_table() {
    for v in [Variant::Standard, Variant::Balanced, Variant::Reversed] {
        for d in 1..=3 {
            println!("{v:?} {d} {}", perft(v, d));
        }
    }
}
