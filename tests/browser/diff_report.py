#!/usr/bin/env python3
"""Opens a refgraph HTML migration report in headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium) and checks that it renders and that its filters work by
clicking them. Prints one JSON object with what it saw; the Rust test judges it.

    python diff_report.py REPORT.html SCREENSHOT.png
"""
import json
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def visible_rows(driver):
    return [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.change") if r.is_displayed()]


def main(report, shot):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.get("file://" + report)
        seen = {
            "title": driver.title,
            "rows": len(driver.find_elements(By.CSS_SELECTOR, "tr.change")),
            "visible": len(visible_rows(driver)),
            "severities": sorted({r.get_attribute("data-severity") for r in visible_rows(driver)}),
        }
        driver.save_screenshot(shot)
        # Untick "breaking": its rows disappear, the others stay, the counter follows.
        box = driver.find_element(By.CSS_SELECTOR, "input.severity[value='breaking']")
        box.click()
        after = visible_rows(driver)
        seen["visible_without_breaking"] = len(after)
        seen["severities_without_breaking"] = sorted({r.get_attribute("data-severity") for r in after})
        seen["shown_text"] = driver.find_element(By.ID, "shown").text
        box.click()
        # Pick the first module: only its rows stay.
        select = Select(driver.find_element(By.ID, "module"))
        module = select.options[1].get_attribute("value")
        select.select_by_value(module)
        rows = visible_rows(driver)
        seen["module"] = module
        seen["visible_in_module"] = len(rows)
        seen["modules_of_visible"] = sorted({r.get_attribute("data-module") for r in rows})
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
