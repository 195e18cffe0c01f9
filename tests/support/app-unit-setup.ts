import { configure } from "@testing-library/react";

/**
 * The app's unit files wait on the page (findBy…, waitFor) for an answer to be drawn: 1 s, the
 * library's default, turned a busy machine (the type-check beside the suite) into a red test.
 * They wait on an event, so waiting longer costs nothing when it comes, as the browser tests do.
 */
configure({ asyncUtilTimeout: 10_000 });
