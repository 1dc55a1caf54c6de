// SPDX-License-Identifier: GPL-3.0-or-later
// partytime.js FEED.xml - prints, as JSON, what podcast-partytime (Podcast Index's parser)
// reads from the feed, for tests/e2e/test_feed_judges.py to compare. Exit 1 when it cannot
// parse the feed. Drops only `lastUpdate`, the parser's own clock.
"use strict";
const fs = require("fs");
const { parseFeed } = require("podcast-partytime");

const feed = parseFeed(fs.readFileSync(process.argv[2], "utf8"));
if (!feed) {
    console.error("podcast-partytime could not parse " + process.argv[2]);
    process.exit(1);
}
delete feed.lastUpdate;
process.stdout.write(JSON.stringify(feed, null, 1) + "\n");
