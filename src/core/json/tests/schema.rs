//! The schema line and the shape of each kind of document.

use super::*;

#[test]
fn schema_and_shape_per_kind() {
    let t = r#"[{"asin":"A","price":1,"bsr":2,"a":3,"b":4,"c":5},{"asin":"B"}]"#;
    let d = doc(t);
    assert_eq!(d.schema, "table: rows=2 cols=6 [asin,price,bsr,a,b,...]");
    assert_eq!(d.shape, "tabular result, 2 rows / 6 cols");
    let d = doc(r#"[{"x":1,"y":2}]"#);
    assert_eq!(d.schema, "table: rows=1 cols=2 [x,y]");
    assert_eq!(d.shape, "tabular result, 1 rows / 2 cols");

    let d = doc("[1, 2, 3.5]");
    assert_eq!(d.schema, "array: len=3 of num");
    assert_eq!(d.shape, "11 chars");
    assert_eq!(doc(r#"[1, "a"]"#).schema, "array: len=2 of mixed");
    assert_eq!(doc(r#"[1, {"a": 1}]"#).schema, "array: len=2 of mixed");
    assert_eq!(doc(r#"["a", "b"]"#).schema, "array: len=2 of str");
    assert_eq!(doc("[]").schema, "array: len=0, empty");
    assert_eq!(doc("[]").shape, "2 chars");

    assert_eq!(doc("7").schema, "value: num");
    assert_eq!(doc("\"héllo\"").schema, "value: str");
    assert_eq!(doc("\"héllo\"").shape, "7 chars");
    assert_eq!(doc("true").schema, "value: bool");
    assert_eq!(doc("null").schema, "value: null");

    let d = doc(SMALL);
    assert_eq!(
        d.schema,
        "object: keys=10 [meta:object{2},rows:array[3],key.with.dots:object{1},0:str,it's:num,q\"k:num,café:str,empty:object{0},...]; table rows: rows=3 cols=3 [id,price,tags]"
    );
    assert_eq!(
        d.shape,
        "object result, top-level keys [meta,rows,key.with.dots,0,it's,...]"
    );
    let d = doc(r#"{"a": 1, "b": [1], "c": {"x": true}}"#);
    assert_eq!(d.schema, "object: keys=3 [a:num,b:array[1],c:object{1}]");
    assert_eq!(d.shape, "object result, top-level keys [a,b,c]");
    assert_eq!(doc("{}").schema, "object: keys=0 []");
    assert_eq!(doc("{}").shape, "object result, top-level keys []");
}

#[test]
fn schema_finds_the_largest_table_one_level_down() {
    let s = r#"{"data": {"items": [{"id": 1, "v": 2}, {"id": 2}, {"id": 3}], "few": [{"q": 1}]},
               "top": [{"z": 1}, {"z": 2}], "nums": [1, 2, 3, 4, 5]}"#;
    let d = doc(s);
    assert_eq!(
        d.schema,
        "object: keys=3 [data:object{2},top:array[2],nums:array[5]]; table data.items: rows=3 cols=2 [id,v]"
    );
}

#[test]
fn schema_is_capped_at_300_code_points() {
    let members: Vec<String> = (0..12)
        .map(|i| format!("\"{}{i}\": [{{\"é{}\": 1}}]", "ключ".repeat(20), "x".repeat(50)))
        .collect();
    let s = format!("{{{}}}", members.join(","));
    let d = doc(&s);
    assert_eq!(d.schema.chars().count(), 300);
    assert!(d.schema.ends_with("..."));
    assert!(d.schema.starts_with("object: keys=12 ["));
    let keys: Vec<String> = (0..9).map(|i| format!("\"k{i}\":{i}")).collect();
    let d = doc(&format!("{{{}}}", keys.join(",")));
    assert_eq!(
        d.schema,
        "object: keys=9 [k0:num,k1:num,k2:num,k3:num,k4:num,k5:num,k6:num,k7:num,...]"
    );
    assert_eq!(d.shape, "object result, top-level keys [k0,k1,k2,k3,k4,...]");
}

#[test]
fn schema_keys_are_decoded_and_single_line() {
    let d = doc(r#"{"a\nb": 1, "\u00e9": 2}"#);
    assert_eq!(d.schema, "object: keys=2 [a b:num,é:num]");
    assert!(!d.schema.contains('\n'));
}
