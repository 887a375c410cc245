//! `[prices."MODEL"]`: what each model costs per million tokens, so `/status` can show
//! what the session cost. Prices only change a display, so a project config may set them
//! without trust.

use std::collections::BTreeMap;

pub use crate::protocol::usage::Price;

use super::ConfigError;

/// The prices of both layers, `b`'s over `a`'s model by model.
pub fn overlay(
    a: Option<BTreeMap<String, Price>>,
    b: Option<BTreeMap<String, Price>>,
) -> Option<BTreeMap<String, Price>> {
    super::overlay_tables(a, b, |mut a, b| {
        a.extend(b);
        a
    })
}

/// The prices, checked: every figure a finite number of dollars, not negative.
pub fn check(
    prices: Option<&BTreeMap<String, Price>>,
) -> Result<BTreeMap<String, Price>, ConfigError> {
    let prices = prices.cloned().unwrap_or_default();
    for (model, price) in &prices {
        let figures = [
            ("input", Some(price.input)),
            ("output", Some(price.output)),
            ("cached_input", price.cached_input),
        ];
        for (key, value) in figures {
            if let Some(v) = value
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(ConfigError::Invalid {
                    source_name: format!("prices.{model:?}.{key}"),
                    message: format!(
                        "{v} is not a price; give US dollars per million tokens, 0 or more (e.g. 2.5)"
                    ),
                });
            }
        }
    }
    Ok(prices)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::FileConfig;

    use super::*;

    fn parse(text: &str) -> FileConfig {
        FileConfig::parse(text, Path::new("c.toml")).unwrap()
    }

    #[test]
    fn prices_are_read_per_model_and_a_project_overrides_one_model() {
        let user = parse(
            "[prices.\"gpt-4o\"]\ninput = 2.5\noutput = 10.0\ncached_input = 1.25\n\
             [prices.small]\ninput = 0.1\noutput = 0.4\n[prices.free]\ninput = 0\noutput = 0\n",
        );
        let project = parse("[prices.small]\ninput = 0.2\noutput = 0.8\n");
        let merged = user.overlay(project);
        let prices = check(merged.integrations.prices.as_ref()).unwrap();
        assert_eq!(
            prices["gpt-4o"],
            Price {
                input: 2.5,
                output: 10.0,
                cached_input: Some(1.25)
            }
        );
        assert_eq!(prices["small"].input, 0.2);
        assert_eq!(prices["small"].output, 0.8);
        assert_eq!(
            prices["free"].cost(&crate::protocol::usage::Usage::default()),
            0.0
        );
    }

    #[test]
    fn a_missing_output_or_an_unknown_key_is_a_parse_error() {
        let err = FileConfig::parse("[prices.m]\ninput = 1.0\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("output"), "{err}");
        let err = FileConfig::parse(
            "[prices.m]\ninput = 1.0\noutput = 2.0\ncurrency = \"EUR\"\n",
            Path::new("c.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("currency"), "{err}");
    }

    #[test]
    fn a_negative_price_is_refused_with_what_to_write() {
        let file = parse("[prices.m]\ninput = -1.0\noutput = 2.0\n");
        let err = check(file.integrations.prices.as_ref())
            .unwrap_err()
            .to_string();
        assert!(err.contains("prices.\"m\".input"), "{err}");
        assert!(err.contains("dollars per million tokens"), "{err}");
        let file = parse("[prices.m]\ninput = 1.0\noutput = nan\n");
        assert!(check(file.integrations.prices.as_ref()).is_err());
    }
}
