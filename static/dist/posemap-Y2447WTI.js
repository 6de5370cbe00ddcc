import{e as a,f as b,g as c,h as d}from"./chunk-IJDUOCKL.js";import"./chunk-7GOWI76T.js";export{c as fitToElement,a as loadFleetMap,d as mountPoseMap,b as poseOfPayload};
