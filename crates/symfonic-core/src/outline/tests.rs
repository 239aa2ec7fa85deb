//! Outlines of text payloads: which kind each measures as.

use super::*;

#[test]
fn plain_text_gets_lines_and_its_tail() {
    let o = of_text("alpha\nbeta\ngamma\ndelta\nepsilon\n");
    assert_eq!(o.shape, "text, 5 lines");
    assert_eq!(o.schema, "text: 5 lines, longest 7 chars");
    assert_eq!(o.facts[0].text, "3: gamma ⏎ 4: delta ⏎ 5: epsilon");
    assert_eq!(o.recall, vec!["lines=\"1-5\"".to_string()]);
}
