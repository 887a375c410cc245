//! Cron expressions: parsing and the next time one fires.
//!
//! Loom accepts exactly what a person knows from crontab(5): five fields (minute, hour,
//! day of month, month, day of week; names like `MON` and `JAN`; `*`, `,`, `-`, `/`), and
//! the nicknames `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`)
//! and `@hourly`. No seconds field (a job every second is never what anyone means) and no
//! `@reboot` (the scheduler runs jobs only while `loom cron run` does). The parsing and the
//! calendar arithmetic are the `croner` crate's (Vixie-cron semantics: when both day
//! fields are restricted, either one matching is enough, and 0 and 7 are both Sunday);
//! this module only narrows what it accepts and words the errors.
//!
//! Pure: no clock. Callers pass "now" in the time zone they mean (the scheduler uses the
//! local one, as cron does).

use std::fmt;

use chrono::{DateTime, TimeZone};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use thiserror::Error;

/// The nicknames accepted, each with what it stands for.
pub const NICKNAMES: &[(&str, &str)] = &[
    ("@yearly", "0 0 1 1 *"),
    ("@annually", "0 0 1 1 *"),
    ("@monthly", "0 0 1 * *"),
    ("@weekly", "0 0 * * 0"),
    ("@daily", "0 0 * * *"),
    ("@midnight", "0 0 * * *"),
    ("@hourly", "0 * * * *"),
];

/// Why a schedule was refused. Every message says what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScheduleError {
    /// Nothing was given.
    #[error(
        "the schedule is empty; give five fields (minute hour day-of-month month day-of-week, \
         e.g. \"0 3 * * *\" for 03:00 every day) or a nickname such as @daily"
    )]
    Empty,
    /// `@reboot`: there is no boot to run at.
    #[error(
        "@reboot is not supported: jobs run only while `loom cron run` does; use a time, \
         e.g. @hourly"
    )]
    Reboot,
    /// An `@name` that is not one of the nicknames.
    #[error("unknown nickname {0}; use one of @yearly, @monthly, @weekly, @daily or @hourly")]
    UnknownNickname(String),
    /// Not five fields.
    #[error(
        "{expr:?} has {count} field(s); a schedule has exactly five: minute hour day-of-month \
         month day-of-week (e.g. \"30 2 * * 1-5\" for 02:30 on weekdays); seconds and years \
         are not supported"
    )]
    FieldCount {
        /// The expression as given.
        expr: String,
        /// How many fields it has.
        count: usize,
    },
    /// Five fields, but one is not valid.
    #[error("{expr:?} is not a valid schedule: {reason}")]
    Invalid {
        /// The expression as given.
        expr: String,
        /// What the parser said.
        reason: String,
    },
    /// Valid, but never fires (e.g. February 30th).
    #[error("{0:?} never fires (no date matches it); check the day and month fields")]
    Never(String),
}

/// Each field of a schedule, in order: its name, the values it allows, and an example.
const FIELDS: [(&str, &str, &str); 5] = [
    (
        "minute",
        "0-59",
        "\"30 * * * *\" runs at half past every hour",
    ),
    ("hour", "0-23", "\"0 9 * * *\" runs at 09:00 every day"),
    (
        "day-of-month",
        "1-31",
        "\"0 0 1 * *\" runs at midnight on the 1st of every month",
    ),
    (
        "month",
        "1-12 or JAN-DEC",
        "\"0 0 1 6 *\" runs at midnight on the 1st of June",
    ),
    (
        "day-of-week",
        "0-7 (0 and 7 are Sunday) or SUN-SAT",
        "\"0 9 * * 1-5\" runs at 09:00 on weekdays",
    ),
];

/// The parser for five-field expressions.
fn parser() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

/// Why `fields` (five, space-separated) did not parse, naming the field at fault: the
/// parser's own message ("Number out of bounds") names none. Each field is tried alone
/// with the others `*`; the first that fails is the one reported.
fn explain(fields: &str, parser_said: &str) -> String {
    let given: Vec<&str> = fields.split(' ').collect();
    let culprit = given.iter().enumerate().find(|(i, field)| {
        let mut alone = ["*"; 5];
        alone[*i] = field;
        parser().parse(&alone.join(" ")).is_err()
    });
    let Some((i, field)) = culprit else {
        return parser_said.to_string();
    };
    let (name, range, example) = FIELDS[i];
    let what = if parser_said.contains("out of bounds") {
        "is out of range".to_string()
    } else {
        format!("is not valid ({parser_said})")
    };
    format!("the {name} field `{field}` {what}; it allows {range} (e.g. {example})")
}

/// A parsed schedule.
#[derive(Clone)]
pub struct Schedule {
    text: String,
    cron: Cron,
}

impl fmt::Debug for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Schedule").field(&self.text).finish()
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Schedule {
    /// Parse a five-field expression or a nickname. Whitespace between fields is
    /// normalised; the text is kept as the person wrote it otherwise.
    pub fn parse(expr: &str) -> Result<Schedule, ScheduleError> {
        let text = expr.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return Err(ScheduleError::Empty);
        }
        let fields = if let Some(nick) = text.strip_prefix('@') {
            let lower = nick.to_ascii_lowercase();
            if lower == "reboot" {
                return Err(ScheduleError::Reboot);
            }
            NICKNAMES
                .iter()
                .find(|(n, _)| n[1..] == lower)
                .map(|(_, f)| f.to_string())
                .ok_or_else(|| ScheduleError::UnknownNickname(text.clone()))?
        } else {
            let count = text.split(' ').count();
            if count != 5 {
                return Err(ScheduleError::FieldCount {
                    expr: text.clone(),
                    count,
                });
            }
            text.clone()
        };
        let cron = parser()
            .parse(&fields)
            .map_err(|e| ScheduleError::Invalid {
                expr: text.clone(),
                reason: explain(&fields, &e.to_string()),
            })?;
        let schedule = Schedule { text, cron };
        // A pattern no date matches (31 February) fails only when searched: refuse it now.
        let probe = chrono::Utc
            .with_ymd_and_hms(2000, 1, 1, 0, 0, 0)
            .single()
            .expect("a valid date");
        if schedule.next_after(&probe).is_none() {
            return Err(ScheduleError::Never(schedule.text));
        }
        Ok(schedule)
    }

    /// The expression as given (whitespace normalised).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The first time strictly after `after` that the schedule fires, in `after`'s time
    /// zone; `None` when it never fires again (or the search gives up).
    pub fn next_after<Tz: TimeZone>(&self, after: &DateTime<Tz>) -> Option<DateTime<Tz>> {
        self.cron.find_next_occurrence(after, false).ok()
    }
}

#[cfg(test)]
mod tests {
    use chrono::{FixedOffset, Utc};

    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// Valid expressions and their next fire time from a fixed "now": Friday
    /// 2026-11-20 10:17:30 UTC.
    #[test]
    fn next_fire_table() {
        let now = at("2026-11-20T10:17:30Z");
        let table = [
            ("* * * * *", "2026-11-20T10:18:00Z"),
            ("*/15 * * * *", "2026-11-20T10:30:00Z"),
            ("0 3 * * *", "2026-11-21T03:00:00Z"),
            ("30 2 * * 1-5", "2026-11-23T02:30:00Z"),
            ("0 9 * * MON", "2026-11-23T09:00:00Z"),
            ("0 9 * * 7", "2026-11-22T09:00:00Z"),
            ("0 9 * * 0", "2026-11-22T09:00:00Z"),
            ("0 0 1 JAN *", "2027-01-01T00:00:00Z"),
            ("5,35 10-11 * * *", "2026-11-20T10:35:00Z"),
            ("0 0 29 2 *", "2028-02-29T00:00:00Z"),
            ("  0   3 *  * *  ", "2026-11-21T03:00:00Z"),
            ("@hourly", "2026-11-20T11:00:00Z"),
            ("@daily", "2026-11-21T00:00:00Z"),
            ("@DAILY", "2026-11-21T00:00:00Z"),
            ("@midnight", "2026-11-21T00:00:00Z"),
            ("@weekly", "2026-11-22T00:00:00Z"),
            ("@monthly", "2026-12-01T00:00:00Z"),
            ("@yearly", "2027-01-01T00:00:00Z"),
            ("@annually", "2027-01-01T00:00:00Z"),
        ];
        for (expr, want) in table {
            let s = Schedule::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
            assert_eq!(s.next_after(&now), Some(at(want)), "{expr}");
        }
    }

    /// Vixie-cron semantics: with both day fields restricted, either one matching fires.
    #[test]
    fn day_of_month_or_day_of_week() {
        let s = Schedule::parse("0 0 13 * FRI").unwrap();
        let now = at("2026-11-01T00:00:00Z");
        // Friday the 6th comes before the 13th.
        assert_eq!(s.next_after(&now), Some(at("2026-11-06T00:00:00Z")));
    }

    /// The next fire time is strictly after "now", even when "now" is a fire time.
    #[test]
    fn next_is_strictly_after_now() {
        let s = Schedule::parse("0 3 * * *").unwrap();
        let now = at("2026-11-20T03:00:00Z");
        assert_eq!(s.next_after(&now), Some(at("2026-11-21T03:00:00Z")));
    }

    /// The schedule is read in the time zone of "now": 03:00 at UTC+2 is 01:00 UTC.
    #[test]
    fn next_fire_is_in_the_time_zone_of_now() {
        let s = Schedule::parse("0 3 * * *").unwrap();
        let tz = FixedOffset::east_opt(2 * 3600).unwrap();
        let now = at("2026-11-20T10:00:00Z").with_timezone(&tz);
        let next = s.next_after(&now).unwrap();
        assert_eq!(next.with_timezone(&Utc), at("2026-11-21T01:00:00Z"));
    }

    /// Invalid expressions: each refused with an error that says what is accepted.
    #[test]
    fn invalid_expressions_table() {
        let table: &[(&str, &str)] = &[
            ("", "the schedule is empty"),
            ("   ", "the schedule is empty"),
            ("@reboot", "@reboot is not supported"),
            ("@fortnightly", "unknown nickname @fortnightly"),
            ("* * * *", "has 4 field(s); a schedule has exactly five"),
            ("0 * * * * *", "has 6 field(s)"),
            ("0 0 * * * * 2030", "has 7 field(s)"),
            ("60 * * * *", "is not a valid schedule"),
            ("* 24 * * *", "is not a valid schedule"),
            ("* * 0 * *", "is not a valid schedule"),
            ("* * * 13 *", "is not a valid schedule"),
            ("* * * * 8", "is not a valid schedule"),
            ("a b c d e", "is not a valid schedule"),
            ("*/0 * * * *", "is not a valid schedule"),
            ("5-1 * * * *", "is not a valid schedule"),
            ("0 0 30 2 *", "never fires"),
        ];
        for (expr, want) in table {
            match Schedule::parse(expr) {
                Ok(s) => panic!("{expr:?} was accepted as {s:?}"),
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.contains(want), "{expr:?}: {msg}");
                }
            }
        }
    }

    /// Issue 24: "61 * * * *" was refused with only "Component error: Number out of
    /// bounds."; the message names the field, its allowed range and an example.
    #[test]
    fn an_out_of_range_field_is_named_with_its_range_and_an_example() {
        let table: &[(&str, &str, &str)] = &[
            (
                "61 * * * *",
                "the minute field `61` is out of range",
                "0-59",
            ),
            ("0 24 * * *", "the hour field `24` is out of range", "0-23"),
            ("0 0 32 * *", "the day-of-month field `32`", "1-31"),
            ("0 0 * 13 *", "the month field `13` is out of range", "1-12"),
            (
                "0 0 * * 8",
                "the day-of-week field `8` is out of range",
                "0-7",
            ),
            (
                "0 0-25 * * *",
                "the hour field `0-25` is out of range",
                "0-23",
            ),
            ("a * * * *", "the minute field `a` is not valid", "0-59"),
        ];
        for (expr, names, range) in table {
            let msg = Schedule::parse(expr).unwrap_err().to_string();
            assert!(msg.contains(names), "{expr:?}: {msg}");
            assert!(
                msg.contains(&format!("it allows {range}")),
                "{expr:?}: {msg}"
            );
            assert!(msg.contains("(e.g. \""), "{expr:?}: {msg}");
            assert!(!msg.contains("Component error"), "{expr:?}: {msg}");
        }
    }

    #[test]
    fn the_text_is_kept_with_whitespace_normalised() {
        assert_eq!(
            Schedule::parse(" 0  3 * * *").unwrap().as_str(),
            "0 3 * * *"
        );
        assert_eq!(Schedule::parse("@daily").unwrap().to_string(), "@daily");
    }
}
