"""Russian: a day and its month read "2 декабря" (genitive, the ``E`` format), not "2 декабрь"
(Django's ``j F``, the nominative): the admin's date drill-down shows it."""

MONTH_DAY_FORMAT = "j E"
