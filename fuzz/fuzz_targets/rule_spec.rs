//! Any text as a rule set: an error or rules whose canonical text reads
//! back as the same rules.
#![no_main]
use libfuzzer_sys::fuzz_target;
use millbase::Rules;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(rules) = text.parse::<Rules>() {
        let canonical = rules.canonical();
        let again: Rules = canonical.parse().expect("canonical text reads back");
        assert_eq!(again, rules, "{text:?} -> {canonical}");
        let short: Rules = rules.short_name().parse().expect("short name reads back");
        assert_eq!(short, rules, "{text:?} -> {}", rules.short_name());
    }
});
