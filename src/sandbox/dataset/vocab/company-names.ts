/**
 * Parts of company names. None of these words appears in the description vocabularies, so a
 * description can never name its company. Patterns (see `companies.ts`):
 * compound brand + suffix ("Bluepeak Systems"), coined brand ("Veronix"), place pair
 * ("Cedar Ridge Capital"), surname pair ("Whitfield & Crane Partners").
 */

const list = (s: string): string[] => s.split(",").map((w) => w.trim());

/** First halves of compound brands ("North" + "wind"). */
export const BRAND_HEADS = list(
  "North, Blue, Silver, Red, Bright, Clear, True, Iron, Stone, Swift, High, Deep, Pine, Oak, Cedar, Maple, River, Lake, Sun, Star, Sky, Moon, Gold, Copper, Amber, Ever, Fair, Frost, Storm, Wild, West, East, South, Hawk, Fox, Wolf, Bear, Eagle, Raven, Falcon, Birch, Elm, Ash, Glen, Hollow, Lumen, Nova, Terra, Aqua, Vista, Apex, Zen, Echo, Orbit, Pulse, Quill, Rapid, Sage, Slate, Tide, Volt, Arc, Bold, Crisp, Dawn, Flint, Grand, Keen, Lark, Mesa, Noble, Opal, Pearl, Quartz, Rune, Summit, Thistle, Vale",
);

/** Second halves of compound brands. */
export const BRAND_TAILS = list(
  "wind, peak, field, stone, bridge, gate, way, line, point, wave, path, ridge, crest, haven, brook, forge, light, spark, vale, mark, port, shore, wood, lane, view, water, fall, rock, ford, well, mont, ton, worth, side, hill, glen, bay, star, fire, root, leaf, wing, hart, castle, mere, moor, bourne",
);

/** Syllables for coined brands ("Veronix", "Lumora"). */
export const COINED_STARTS = list(
  "Ver, Lum, Quan, Zen, Al, Cor, Nov, Sol, Kal, Ter, Vir, Xan, Mir, Ax, Bel, Cal, Dex, Fen, Hal, Jov, Kin, Lyr, Mav, Nex, Ori, Pax, Rho, Syn, Tal, Ul, Vel, Wyn, Zy, Ev, Ob, Ar, En, Is, Om, Ven",
);
export const COINED_MIDDLES = list("o, a, i, e, ora, ara, ino, eno, ivi, ola, era, una, ari, ova, ela");
export const COINED_ENDS = list(
  "nix, ra, ta, vo, lia, nta, x, s, on, io, ium, ex, ly, ia, ent, os, ara, ica, ive, is",
);

/** Place-like pairs ("Cedar Ridge", "Granite Bay"). */
export const PLACE_FIRSTS = list(
  "Cedar, Granite, Harbor, Silver, Eagle, Maple, Falcon, Willow, Aspen, Copper, Hudson, Beacon, Highland, Juniper, Magnolia, Meridian, Oakmont, Pinecrest, Redwood, Sterling, Timber, Westbrook, Whitmore, Cypress, Alder, Bramble, Chestnut, Hawthorn, Kestrel, Laurel",
);
export const PLACE_SECONDS = list(
  "Ridge, Bay, Point, Lake, Rock, Grove, Hill, Creek, Park, Valley, Harbor, Springs, Crossing, Heights, Landing, Meadow, Bluff, Hollow, Pass, Shore",
);

/** Surnames and birds for partner-style names ("Whitfield & Crane"). */
export const PARTNER_NAMES = list(
  "Whitfield, Crane, Finch, Harlow, Ashby, Bramwell, Calloway, Delaney, Ellison, Fairbanks, Garrison, Hadley, Iverson, Jardine, Kensington, Langley, Merrick, Norwood, Oakley, Prescott, Quinlan, Rutherford, Sinclair, Thornton, Underwood, Vance, Whitaker, Yardley, Abernathy, Blackwood, Carrington, Dunmore, Everly, Fenwick, Hargrove, Lockwood, Pemberton, Radcliffe, Stanhope, Wexford",
);
