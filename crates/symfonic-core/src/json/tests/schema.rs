//! The outline (stub v2) of each kind of JSON document.

use super::*;
use crate::outline::Outline;

fn outline(t: &str) -> Outline {
    doc(t).outline
}

#[test]
fn tables_list_columns_over_all_rows_with_counts() {
    let t = r#"[{"asin":"A","price":1,"bsr":2,"a":3,"b":4,"c":5},{"asin":"B","tags":[]},{"asin":"C","price":2,"tags":["x"]}]"#;
    let o = outline(t);
    assert_eq!(
        o.schema,
        "array[3] of records, 7 columns: asin:str,price:num 2/3,bsr:num 1/3,a:num 1/3,b:num 1/3,c:num 1/3,tags:array 2/3"
    );
    assert_eq!(o.shape, "JSON array");
    assert_eq!(o.recall, vec!["json_path=\"$[0]\"".to_string()]);
    assert!(o.facts.is_empty());
}

#[test]
fn scalars_arrays_and_small_objects() {
    assert_eq!(outline("[1, 2, 3.5]").schema, "array[3] of num");
    assert_eq!(outline(r#"[1, "a", "b"]"#).schema, "array[3] of str,num");
    assert_eq!(outline("[]").schema, "array[0]");
    assert_eq!(outline("7").schema, "num");
    assert_eq!(outline("\"héllo\"").shape, "JSON str");
    assert_eq!(outline("null").schema, "null");
    let o = outline(r#"{"a": 1, "b": [1], "c": {"x": true}}"#);
    assert_eq!(o.schema, "object{3} [a:num,b:array[1],c:object{1}]");
    assert_eq!(o.shape, "JSON object");
    assert_eq!(outline("{}").schema, "object{0} []");
}

#[test]
fn keys_that_need_quoting_are_written_as_json_path_segments() {
    let o = outline(SMALL);
    assert_eq!(
        o.schema,
        "object{10} [meta:object{2},rows:array[3],['key.with.dots']:object{1},['0']:str,['it\\'s']:num,['q\"k']:num,café:str,empty:object{0},none:null,list:array[0]]"
    );
    let o = outline(r#"{"": {"a": 1}, ". ": {"a": 2}, "it's": 3, "\n": 4, "ok": 5}"#);
    assert_eq!(
        o.schema,
        "object{5} [['']:object{1},['. ']:object{1},['it\\'s']:num,['\\n']:num,ok:num]"
    );
    assert!(!o.schema.contains('\n'));
    assert_eq!(o.recall, vec!["json_path=\"$['']\"".to_string()]);
}

#[test]
fn the_largest_collection_below_is_described_with_its_path() {
    let s = r#"{"meta": {"count": 3}, "data": {"items": [{"id": 1, "v": 2}, {"id": 2}, {"id": 3}], "few": [{"q": 1}]},
               "nums": [1, 2, 3, 4, 5]}"#;
    let o = outline(s);
    assert_eq!(
        o.schema,
        "object{3} [meta:object{1},data:object{2},nums:array[5]]"
    );
    assert_eq!(o.facts.len(), 1);
    assert_eq!(o.facts[0].label, "data");
    assert_eq!(
        o.facts[0].text,
        "$.data.items: array[3] of records, 2 columns: id:num,v:num 1/3"
    );
    assert_eq!(o.recall, vec!["json_path=\"$.data.items[0]\"".to_string()]);
}

#[test]
fn one_key_wrappers_are_followed_to_the_wide_node() {
    let langs: Vec<String> = (0..20).map(|i| format!("\"l{i:02}\": \"Lang {i}\"")).collect();
    let s = format!(
        r#"{{"main": {{"ja": {{"identity": {{"language": "ja"}}, "localeDisplayNames": {{"languages": {{{}}}}}}}}}}}"#,
        langs.join(",")
    );
    let o = outline(&s);
    assert_eq!(
        o.schema,
        "$.main.ja: object{2} [identity:object{1},localeDisplayNames:object{1}]"
    );
    assert_eq!(
        o.facts[0].text,
        "$.main.ja.localeDisplayNames.languages: object{20} of str keyed like 'l00' ('l' + 2 digits)"
    );
    assert_eq!(
        o.recall,
        vec!["json_path=\"$.main.ja.localeDisplayNames.languages.l00\"".to_string()]
    );
}

#[test]
fn maps_of_records_give_key_format_fields_and_an_example_path() {
    let orders: Vec<String> = (0..30)
        .map(|i| {
            let extra = if i % 3 == 0 { r#","note":"gift""# } else { "" };
            format!(
                r##""#W{:07}": {{"order_id":"#W{:07}","status":"pending","items":[1]{extra}}}"##,
                2611340 + i,
                2611340 + i
            )
        })
        .collect();
    let s = format!(
        "{{\"orders\": {{{}}}, \"users\": {{\"u\": 1}}}}",
        orders.join(",")
    );
    let o = outline(&s);
    assert_eq!(o.schema, "object{2} [orders:object{30},users:object{1}]");
    assert_eq!(
        o.facts[0].text,
        "$.orders: object{30} of records keyed like '#W2611340' ('#W' + 7 digits); 4 fields: order_id:str,status:str,items:array,note:str 10/30"
    );
    assert_eq!(
        o.recall,
        vec!["json_path=\"$.orders['#W2611340'].order_id\"".to_string()]
    );
}

#[test]
fn columns_name_the_kinds_of_their_values() {
    // One kind, two (most common first), three or more.
    let t = r#"[{"a":"x","b":null,"c":1,"d":{"k":1}},{"a":"y","b":"z","c":"2","d":[1]},{"a":"w","b":null,"c":true,"d":{}}]"#;
    assert_eq!(
        outline(t).schema,
        "array[3] of records, 4 columns: a:str,b:null|str,c:mixed,d:object|array"
    );
    // A map's records too.
    let recs: Vec<String> = (0..12)
        .map(|i| format!(r#""k{i}": {{"id": {i}, "tags": ["t"], "ok": {}}}"#, i % 2 == 0))
        .collect();
    assert_eq!(
        outline(&format!("{{{}}}", recs.join(","))).schema,
        "object{12} of records keyed like 'k0' ('k' + digits); 3 fields: id:num,tags:array,ok:bool"
    );
}

#[test]
fn wide_tables_fill_the_budget_keeping_the_common_columns() {
    let mut rows = Vec::new();
    for r in 0..10 {
        let mut fields: Vec<String> = (0..60).map(|c| format!("\"column_number_{c}\": {c}")).collect();
        if r == 0 {
            fields.push("\"rare\": 1".into());
        }
        rows.push(format!("{{{}}}", fields.join(",")));
    }
    let o = outline(&format!("[{}]", rows.join(",")));
    assert!(o.schema.chars().count() <= 300, "{}", o.schema);
    assert!(o
        .schema
        .starts_with("array[10] of records, 61 columns: column_number_0:num,column_number_1:num,"));
    assert!(o.schema.ends_with(" more"), "{}", o.schema);
    assert!(!o.schema.contains("rare"), "{}", o.schema);
}

/// MDN's browser-compat-data: records whose union of fields is past the
/// tracking cap. The count and the "more" both say "at least".
#[test]
fn a_union_past_the_tracking_cap_says_at_least() {
    let rows: Vec<String> = (0..300)
        .map(|r| format!("{{\"common\":1,\"f{r}a\":1,\"f{r}b\":2}}"))
        .collect();
    let o = outline(&format!("[{}]", rows.join(",")));
    assert!(
        o.schema.contains(" columns: ") && o.schema.contains("+ columns: "),
        "{}",
        o.schema
    );
    assert!(o.schema.ends_with("+ more"), "{}", o.schema);
}

#[test]
fn large_collections_are_sampled_deterministically() {
    let rows: Vec<String> = (0..5000)
        .map(|i| {
            if i % 2 == 0 {
                format!("{{\"id\":{i},\"even\":true}}")
            } else {
                format!("{{\"id\":{i}}}")
            }
        })
        .collect();
    let t = format!("[{}]", rows.join(","));
    let o = outline(&t);
    assert_eq!(
        o.schema,
        "array[5000] of records, 2 columns (1000 rows sampled): id:num,even:bool 500/1000"
    );
    assert_eq!(outline(&t), o);
}

#[test]
fn key_formats() {
    let uuids = r#"{"123e4567-e89b-12d3-a456-426614174000": 1, "123e4567-e89b-12d3-a456-426614174001": 2,
        "223e4567-e89b-12d3-a456-426614174000": 1, "323e4567-e89b-12d3-a456-426614174001": 2,
        "423e4567-e89b-12d3-a456-426614174000": 1, "523e4567-e89b-12d3-a456-426614174001": 2,
        "623e4567-e89b-12d3-a456-426614174000": 1, "723e4567-e89b-12d3-a456-426614174001": 2,
        "823e4567-e89b-12d3-a456-426614174000": 1, "923e4567-e89b-12d3-a456-426614174001": 2,
        "a23e4567-e89b-12d3-a456-426614174000": 1, "b23e4567-e89b-12d3-a456-426614174001": 2}"#;
    assert!(
        outline(uuids).schema.ends_with("(UUIDs)"),
        "{}",
        outline(uuids).schema
    );
    let ids: Vec<String> = (0..15).map(|i| format!("\"{}\": {i}", 7 + i * 13)).collect();
    assert_eq!(
        outline(&format!("{{{}}}", ids.join(","))).schema,
        "object{15} of num keyed like '7' (digits)"
    );
}

#[test]
fn the_schema_line_is_capped_at_300_code_points() {
    let members: Vec<String> = (0..11)
        .map(|i| format!("\"{}{i}\": [{{\"é{}\": 1}}]", "ключ".repeat(20), "x".repeat(50)))
        .collect();
    let o = outline(&format!("{{{}}}", members.join(",")));
    assert!(o.schema.chars().count() <= 300, "{}", o.schema);
    assert!(o.schema.starts_with("object{11} ["));
}
